/**
 * Holds docs/lifecycle-hooks.md to the contract in both directions: every point under a heading
 * of its own name with a table of every field (type, decision or fact, default), no field the
 * code lacks, the WorkItem table, and TypeScript examples that type-check against the SDK.
 */
import assert from "node:assert/strict";
import { POINT_NAMES, POINTS } from "../lifecycle/sdk/mod.ts";
import { LifecycleHooks } from "../lifecycle/sdk/mod.ts";
import { WORK_ITEM_FIELDS } from "../lifecycle/sdk/mod.ts";

const DOC_URL = new URL("../docs/lifecycle-hooks.md", import.meta.url);
const DOC = Deno.readTextFileSync(DOC_URL);

/** `## heading` → the section's text up to the next `## `. */
function sections(doc: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of doc.split(/^## /m).slice(1)) {
    const nl = part.indexOf("\n");
    const head = part.slice(0, nl).trim();
    if (out.has(head)) out.set(`${head} (again)`, "");
    out.set(head, part.slice(nl + 1));
  }
  return out;
}

/** The first table of a section, as rows of trimmed cells keyed by the header (backticks off). */
function table(text: string): Record<string, string>[] {
  const lines = text.split("\n").map((l) => l.trim());
  const start = lines.findIndex((l) => l.startsWith("|"));
  if (start < 0) return [];
  const rows: string[][] = [];
  for (let i = start; i < lines.length && lines[i].startsWith("|"); i++) {
    rows.push(
      lines[i].replace(/^\||\|$/g, "").split(/(?<!\\)\|/).map((c) =>
        c.trim().replace(/^`(.*)`$/, "$1")
      ),
    );
  }
  const [head, _sep, ...body] = rows;
  return body.map((r) => Object.fromEntries(head.map((h, i) => [h, r[i] ?? ""])));
}

/** Every way the doc and the contract disagree, one line each. */
export function docProblems(doc: string): string[] {
  const problems: string[] = [];
  const secs = sections(doc);
  for (const head of secs.keys()) {
    if (head.endsWith("(again)")) problems.push(`heading "${head.slice(0, -8)}" appears twice`);
    else if (/^[a-z_]+$/.test(head) && !(POINT_NAMES as readonly string[]).includes(head)) {
      problems.push(`"## ${head}" documents a point the code lacks`);
    }
  }
  for (const point of POINT_NAMES) {
    const text = secs.get(point);
    if (text === undefined) {
      problems.push(`${point}: no "## ${point}" section`);
      continue;
    }
    const rows = table(text);
    const documented = rows.map((r) => r.field);
    const fields = POINTS[point].fields;
    for (const f of fields) {
      const row = rows.find((r) => r.field === f.name);
      if (!row) {
        problems.push(`${point}.${f.name}: not documented`);
        continue;
      }
      if (row.type !== f.type) {
        problems.push(`${point}.${f.name}: type is ${f.type}, doc says ${row.type}`);
      }
      const kind = f.decision ? "decision" : "fact";
      if (row.kind !== kind) {
        problems.push(`${point}.${f.name}: is a ${kind}, doc says ${row.kind}`);
      }
      const dflt = f.decision ? JSON.stringify(f.default) : "—";
      if (row.default !== dflt) {
        problems.push(`${point}.${f.name}: default is ${dflt}, doc says ${row.default}`);
      }
      if (!row.meaning) problems.push(`${point}.${f.name}: no meaning given`);
    }
    for (const name of documented) {
      if (!fields.some((f) => f.name === name)) {
        problems.push(`${point}.${name}: documented, but the code has no such field`);
      }
    }
    if (
      documented.filter((n) => fields.some((f) => f.name === n)).join() !==
        fields.map((f) => f.name).filter((n) => documented.includes(n)).join()
    ) {
      problems.push(
        `${point}: fields documented out of order (code: ${fields.map((f) => f.name).join(", ")})`,
      );
    }
  }
  const wi = table(secs.get("WorkItem") ?? "");
  for (const f of WORK_ITEM_FIELDS) {
    const row = wi.find((r) => r.field === f.name);
    if (!row) problems.push(`WorkItem.${f.name}: not documented`);
    else if (row.type !== f.type) {
      problems.push(`WorkItem.${f.name}: type is ${f.type}, doc says ${row.type}`);
    }
  }
  for (const r of wi) {
    if (!WORK_ITEM_FIELDS.some((f) => f.name === r.field)) {
      problems.push(`WorkItem.${r.field}: documented, but WorkItem has no such field`);
    }
  }
  return problems;
}

Deno.test("docs/lifecycle-hooks.md documents the contract, field for field, both ways", () => {
  assert.deepEqual(docProblems(DOC), []);
});

Deno.test("the docs check catches each kind of drift", () => {
  const drift = (from: RegExp, to: string) => {
    const changed = DOC.replace(from, to);
    assert.notEqual(changed, DOC, `the mutation ${from} applies`);
    return docProblems(changed);
  };
  assert.deepEqual(drift(/^\| *tmux_target .*\n/m, ""), [
    "session_spawned.tmux_target: not documented",
  ]);
  assert.deepEqual(drift(/^## phase_changed$/m, "## phase_change"), [
    '"## phase_change" documents a point the code lacks',
    'phase_changed: no "## phase_changed" section',
  ]);
  assert.deepEqual(
    drift(/^(\| *notify *\| *`boolean` *\| *)decision( *\| *)`true`/m, "$1fact$2—"),
    [
      "phase_changed.notify: is a decision, doc says fact",
      "phase_changed.notify: default is true, doc says —",
    ],
  );
  assert.deepEqual(drift(/^(\| *respawn *\| *)`boolean`/m, "$1`string`"), [
    "session_spawn.respawn: type is boolean, doc says string",
  ]);
  assert.deepEqual(
    drift(
      /^(\| *announce .*\n)(?=\n## waiting_for_input)/m,
      "$1| colour | `string` | fact | — | red |\n",
    ),
    [
      "session_spawned.colour: documented, but the code has no such field",
    ],
  );
  assert.deepEqual(drift(/^\| *url *\| *`string`.*\n/m, ""), ["WorkItem.url: not documented"]);
  const swapped = drift(/^(\| *harness *\|.*\n)(\| *cwd *\|.*\n)/m, "$2$1");
  assert.equal(swapped.length, 1);
  assert.match(swapped[0], /^session_spawn: fields documented out of order/);
});

Deno.test("the docs name the SDK's import specifier", () => {
  assert.match(DOC, /import \{ LifecycleHooks[^}]*\} from "@the-loop\/hooks";/);
});

Deno.test("every point in POINTS has a method of the same name on LifecycleHooks", () => {
  for (const p of Object.keys(POINTS)) {
    assert.equal(
      typeof (LifecycleHooks.prototype as unknown as Record<string, unknown>)[p],
      "function",
      p,
    );
  }
});

Deno.test("the docs' TypeScript examples type-check against the SDK", async () => {
  const blocks = [...DOC.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.ok(blocks.length >= 2, "the docs carry TypeScript examples");
  const dir = await Deno.makeTempDir({ prefix: "the-loop-docs-" });
  try {
    const sdk = new URL("../lifecycle/sdk/mod.ts", import.meta.url).href;
    const files = blocks.map((code, i) => {
      const file = `${dir}/example_${i}.ts`;
      Deno.writeTextFileSync(file, code.replaceAll('"@the-loop/hooks"', JSON.stringify(sdk)));
      return file;
    });
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--no-config", "--cached-only", ...files],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
