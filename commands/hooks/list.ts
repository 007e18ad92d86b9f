/**
 * `the-loop hooks [--format text|json]`: the `hooks:` declaration, read strictly (nothing is
 * imported, contacted or run). Prints each entry's kind, target, points, failure policy, flags
 * and budget; never a token or header value (the listing is `describeDeclaration`'s, made for
 * this). Also
 * each hook's circuit as the daemons recorded it under `state.root` (`_circuits.ts`): a
 * one-shot command cannot see a daemon's memory, so a daemon writes an open circuit there.
 *
 * `--format json` prints the envelope (`commands/_envelope.ts`, `schema/cli/hooks.json`) in
 * every outcome, and no field changes its type from hook to hook: `on` is always the list of
 * points (every point, with `onAll: true`, when `on:` is absent), and each `permissions` grant
 * is `{ all, list }` (`true` in the config is `{ all: true, list: [] }`).
 *
 * @module
 */
import { relative } from "node:path";
import { plural } from "../../errors.ts";
import { describeDeclaration } from "../../lifecycle/mod.ts";
import { POINT_NAMES } from "../../lifecycle/sdk/mod.ts";
import { type CliContext, println } from "../context.ts";
import { readDeclaration } from "../_declaration.ts";
import { configRef, jsonOnFailure, printEnvelope } from "../_envelope.ts";
import { circuitText, readCircuits } from "./_circuits.ts";

type DescribedEntry = ReturnType<typeof describeDeclaration>[number];

/** Flags of `hooks`. */
export interface ListFlags {
  format: "text" | "json";
}

/** Prints the declaration. Throws `ProblemsError` (exit 1) when it does not parse. */
export function listHooks(ctx: CliContext, flags: ListFlags): Promise<void> {
  const json = flags.format === "json";
  return jsonOnFailure(
    ctx,
    { json, command: "hooks", fields: { hooks: [] } },
    (ctx) => list(ctx, flags),
  );
}

async function list(ctx: CliContext, flags: ListFlags): Promise<void> {
  const { loaded, decl } = await readDeclaration(ctx);
  const described = describeDeclaration(decl);
  const circuits = await readCircuits(loaded.config.state.root, described.map((h) => h.name));
  const hooks = described.map((h) => ({ ...h, circuit: circuits.get(h.name)! }));
  if (flags.format === "json") {
    printEnvelope(ctx, "hooks", { ok: true, config: configRef(loaded) }, {
      hooks: hooks.map(jsonEntry),
    });
    return;
  }
  const from = loaded.path ?? "no config file found; defaults apply";
  if (hooks.length === 0) {
    println(
      ctx,
      `no hooks declared (${from}); see docs/lifecycle-hooks.md or 'the-loop hooks init'`,
    );
    return;
  }
  println(ctx, `${plural(hooks.length, "hook")} in ${from}, run in this order:`);
  for (const h of hooks) {
    println(ctx);
    println(ctx, `${h.name} (${h.kind})${h.enabled ? "" : "  [disabled]"}`);
    for (const [k, v] of details(h, loaded.baseDir)) println(ctx, `  ${k.padEnd(12)} ${v}`);
    println(ctx, `  ${"circuit".padEnd(12)} ${circuitText(h.name, h.circuit)}`);
  }
}

/** One hook as JSON: `on` always a list (with `onAll`), each grant always `{ all, list }`. */
function jsonEntry(h: DescribedEntry): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(h).flatMap(([k, v]): [string, unknown][] => {
      if (k === "on") {
        return [["on", v === "default" ? [...POINT_NAMES] : v], ["onAll", v === "default"]];
      }
      if (k !== "permissions") {
        return [[k, v]];
      }
      const grants = Object.entries(v as Record<string, true | string[]>)
        .map(([kind, g]) => [kind, { all: g === true, list: g === true ? [] : g }]);
      return [[k, Object.fromEntries(grants)]];
    }),
  );
}

/**
 * What the hook's failure does: `warn`, `block`, or `suspend (mode)` with its retries' waits
 * and its escalation when set.
 */
function policyText(h: DescribedEntry): string {
  if (h.onError !== "suspend") return h.onError;
  const extra = [
    ...(h.retryBackoffMs ? [`retries after ${h.retryBackoffMs.join(", ")} ms`] : []),
    ...(h.suspendTimeoutMinutes !== undefined
      ? [`escalated after ${h.suspendTimeoutMinutes} min`]
      : []),
  ];
  return `suspend (${[h.suspendMode, ...extra].join("; ")})`;
}

function listed(v: unknown): string {
  return Array.isArray(v) ? (v.length ? v.join(", ") : "none") : String(v);
}

function grants(p: Record<string, true | string[]>): string {
  const parts = Object.entries(p).map(([k, v]) => `${k}: ${v === true ? "all" : v.join(" ")}`);
  return parts.length ? parts.join("; ") : "none (fully sandboxed)";
}

/** The lines under one hook: what it runs, when, and how. */
function details(h: DescribedEntry, baseDir: string): [string, string][] {
  const rows: [string, string][] = [];
  const where = h.line !== undefined ? ` (line ${h.line})` : "";
  if (h.kind === "module") rows.push(["path", relative(baseDir, String(h.path)) + where]);
  else if (h.kind === "remote") rows.push(["url", String(h.url) + where]);
  else rows.push(["command", h.target + where]);
  const dflt = h.kind === "module" ? "the points it implements" : "every point";
  rows.push(["on", h.on === "default" ? `default (${dflt})` : h.on.join(", ")]);
  rows.push(["required", h.required ? "yes: its failure refuses the operation" : "no"]);
  rows.push(["policy", policyText(h)]);
  rows.push(["enabled", h.enabled ? "yes" : "no"]);
  rows.push(["timeout", `${h.timeoutSeconds}s`]);
  if (h.kind === "module") {
    rows.push([
      "isolation",
      `${h.isolation}${h.isolation === "process" ? `, ${h.maxMemoryMb} MiB memory budget` : ""}`,
    ]);
    rows.push(["permissions", grants(h.permissions as Record<string, true | string[]>)]);
    if (h.executor) rows.push(["executor", String(h.executor)]);
    rows.push(["options", listed(h.options)]);
  } else if (h.kind === "remote") {
    rows.push(["token", h.tokenEnv ? `from $${h.tokenEnv}` : "none"]);
    rows.push(["headers", listed(h.headers)]);
  } else {
    rows.push(["env", listed(h.env)]);
    rows.push(["max output", `${h.maxOutputBytes} bytes`]);
  }
  return rows;
}
