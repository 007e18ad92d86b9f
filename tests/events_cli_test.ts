import assert from "node:assert/strict";
import { cli, spawnCli } from "./_cli.ts";
import { EVENT_TYPES } from "../events/mod.ts";

const MIN = 60_000;

/** A temp dir with a generated log at the default place, `.the-loop/logs/events.jsonl`. */
function fixture(): { dir: string; path: string; now: number } {
  const dir = Deno.makeTempDirSync({ prefix: "the-loop-events-" });
  Deno.mkdirSync(`${dir}/.the-loop/logs`, { recursive: true });
  const path = `${dir}/.the-loop/logs/events.jsonl`;
  const now = Date.now();
  const lines: string[] = [];
  for (let i = 0; i < 200; i++) {
    const rec: Record<string, unknown> = {
      ts: new Date(now - (200 - i) * MIN + MIN / 2).toISOString(), // a minute apart, the last 30s ago
      source: i % 2 ? "hooks" : "poll",
      event: ["hooks.ran", "hooks.failed", "poll.checked", "hooks.timed_out"][i % 4],
      level: ["debug", "info", "warning", "error"][i % 4],
      pid: 7,
      seq: i,
    };
    if (i % 10 === 0) rec.work_item = "acme/w#1";
    if (i % 10 === 1) rec.work_item = { ref: "acme/w#1", kind: "issue" };
    if (i % 10 === 2) rec.endpoint = "acme/w#1";
    if (i === 77) rec.delivery_id = "d-77";
    lines.push(JSON.stringify(rec));
    if (i === 100) lines.push("{not json", "[]");
  }
  Deno.writeTextFileSync(path, lines.join("\n") + "\n");
  return { dir, path, now };
}

async function seqs(args: string[], cwd: string): Promise<number[]> {
  const r = await cli(["events", "--format", "jsonl", ...args], { cwd });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.split("\n").filter((l) => l).map((l) => JSON.parse(l).seq);
}

const range = (from: number, to: number, step = 1) =>
  Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);

Deno.test("events reads the config's eventLog.path; --limit keeps the last N (default 50)", async () => {
  const { dir } = fixture();
  assert.deepEqual(await seqs([], dir), range(150, 199));
  assert.deepEqual(await seqs(["--limit", "3"], dir), [197, 198, 199]);
  assert.equal((await seqs(["--limit", "0"], dir)).length, 200);
  const other = Deno.makeTempDirSync();
  assert.deepEqual(
    await seqs(["--file", `${dir}/.the-loop/logs/events.jsonl`, "--limit", "1"], other),
    [199],
  );
});

Deno.test("events filters: --type patterns, --level, --source, --work-item, --delivery-id", async () => {
  const { dir } = fixture();
  const all = ["--limit", "0"];
  assert.deepEqual(await seqs([...all, "--type", "hooks.t*"], dir), range(3, 199, 4));
  assert.deepEqual(
    await seqs([...all, "--type", "hooks.ra?", "--type", "poll.*", "--limit", "4"], dir),
    [192, 194, 196, 198],
  );
  assert.deepEqual(await seqs([...all, "--type", "hooks.[!rt]*"], dir), range(1, 199, 4));
  assert.deepEqual(await seqs([...all, "--level", "warning", "--limit", "3"], dir), [
    195,
    198,
    199,
  ]);
  assert.deepEqual(
    await seqs([...all, "--source", "poll", "--type", "hooks.ran", "--limit", "2"], dir),
    [192, 196],
  );
  const wi = await seqs([...all, "--work-item", "acme/w#1"], dir);
  assert.deepEqual(wi.slice(0, 6), [0, 1, 2, 10, 11, 12]);
  assert.equal(wi.length, 60);
  assert.deepEqual(await seqs([...all, "--delivery-id", "d-77"], dir), [77]);
  assert.deepEqual(await seqs(["--delivery-id", "nope"], dir), []);
});

Deno.test("events --since takes a duration or an ISO-8601 time", async () => {
  const { dir, now } = fixture();
  assert.deepEqual(await seqs(["--since", "120s"], dir), [198, 199]);
  assert.deepEqual(await seqs(["--since", "4m", "--type", "hooks.*"], dir), [196, 197, 199]);
  const iso = new Date(now - 4 * MIN).toISOString();
  assert.deepEqual(await seqs(["--since", iso], dir), [196, 197, 198, 199]);
  assert.equal((await seqs(["--since", "1d", "--limit", "0"], dir)).length, 200);
});

Deno.test("events formats: table columns and summary, json array", async () => {
  const { dir } = fixture();
  const t = await cli(["events", "--limit", "2", "--work-item", "acme/w#1"], { cwd: dir });
  assert.equal(t.code, 0);
  const rows = t.stdout.trimEnd().split("\n");
  assert.deepEqual(rows[0].split(/\s+/), [
    "ts",
    "level",
    "source",
    "event",
    "work_item",
    "summary",
  ]);
  assert.match(rows[1], /^\S+Z\s+error\s+hooks\s+hooks\.timed_out\s+acme\/w#1\s+seq=191$/);
  assert.match(rows[2], /^\S+Z\s+debug\s+poll\s+hooks\.ran\s+-\s+seq=192 endpoint=acme\/w#1$/);
  const j = await cli(["events", "--limit", "2", "--format", "json"], { cwd: dir });
  const parsed = JSON.parse(j.stdout);
  assert.deepEqual(parsed.map((r: { seq: number }) => r.seq), [198, 199]);
  assert.equal(parsed[0].event, "poll.checked");
});

Deno.test("events skips malformed lines with a count on stderr", async () => {
  const { dir } = fixture();
  const r = await cli(["events", "--limit", "0", "--format", "jsonl"], { cwd: dir });
  assert.equal(r.code, 0);
  assert.equal(r.stdout.trim().split("\n").length, 200);
  assert.match(r.stderr, /skipped 2 malformed line\(s\)/);
  const tail = await cli(["events", "--limit", "100"], { cwd: dir }); // reads past them backwards
  assert.match(tail.stderr, /skipped 2 malformed line\(s\)/);
  const clean = await cli(["events", "--limit", "5"], { cwd: dir });
  assert.equal(clean.stderr, "");
});

Deno.test("events on a missing log prints nothing ([] for json), says so, exits 0", async () => {
  const dir = Deno.makeTempDirSync();
  const t = await cli(["events"], { cwd: dir });
  assert.deepEqual([t.code, t.stdout], [0, ""]);
  assert.match(t.stderr, /event log .*events\.jsonl does not exist yet/);
  const j = await cli(["events", "--format", "json", "--file", "x.jsonl"], { cwd: dir });
  assert.deepEqual([j.code, j.stdout], [0, "[]\n"]);
  assert.match(j.stderr, new RegExp(`${dir}/x\\.jsonl does not exist yet`));
});

Deno.test("events rejects bad flag values with exit 2 and a clear message", async () => {
  const dir = Deno.makeTempDirSync();
  const cases: [string[], RegExp][] = [
    [["--since", "yesterday"], /--since: cannot read 'yesterday'; use a duration such as 30s/],
    [["--level", "loud"], /--level: unknown level 'loud'; use one of debug, info, warning, error/],
    [["--limit", "-1"], /--limit: must be a whole number ≥ 0/],
    [["--limit", "ten"], /--limit: must be a whole number ≥ 0/],
    [["--format", "xml"], /argument 'xml' is invalid/],
    [["--follow", "--format", "json"], /--follow prints one event per line/],
  ];
  for (const [args, message] of cases) {
    const r = await cli(["events", ...args], { cwd: dir });
    assert.equal(r.code, 2, args.join(" "));
    assert.match(r.stderr, message);
    assert.equal(r.stdout, "");
  }
});

Deno.test("events --types prints the catalog as text or json", async () => {
  const text = await cli(["events", "--types"]);
  assert.equal(text.code, 0);
  for (const [name, t] of Object.entries(EVENT_TYPES)) {
    assert.match(text.stdout, new RegExp(`^${name.replace(".", "\\.")}  \\[${t.level}\\]`, "m"));
  }
  assert.match(text.stdout, /^ {4}leaked +boolean — /m);
  const json = await cli(["events", "--types", "--format", "json"]);
  assert.deepEqual(JSON.parse(json.stdout), EVENT_TYPES);
});

async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  seen: { text: string },
  want: RegExp,
): Promise<void> {
  const decoder = new TextDecoder();
  const deadline = Date.now() + 20_000;
  while (!want.test(seen.text)) {
    if (Date.now() > deadline) throw new Error(`no ${want} in output: ${seen.text}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`output ended before ${want}: ${seen.text}`);
    seen.text += decoder.decode(value, { stream: true });
  }
}

Deno.test("events --follow prints matches, then new ones as written, until SIGINT", async () => {
  const { dir, path } = fixture();
  const child = spawnCli([
    "events",
    "--follow",
    "--type",
    "hooks.ran",
    "--limit",
    "1",
    "--format",
    "jsonl",
  ], {
    cwd: dir,
  });
  const reader = child.stdout.getReader();
  const seen = { text: "" };
  try {
    await readUntil(reader, seen, /"seq":196/);
    const rec = (seq: number, event: string) =>
      JSON.stringify({
        ts: new Date().toISOString(),
        source: "hooks",
        event,
        level: "info",
        pid: 1,
        seq,
      }) + "\n";
    Deno.writeTextFileSync(path, rec(1000, "hooks.failed") + rec(1001, "hooks.ran"), {
      append: true,
    });
    await readUntil(reader, seen, /"seq":1001/);
  } finally {
    child.kill("SIGINT");
    reader.releaseLock();
  }
  const status = await child.status;
  await child.stdout.cancel();
  const stderr = new TextDecoder().decode(await new Response(child.stderr).arrayBuffer());
  assert.equal(status.code, 0, stderr);
  const seqsOut = seen.text.trim().split("\n").map((l) => JSON.parse(l).seq);
  assert.deepEqual(seqsOut, [196, 1001]);
});
