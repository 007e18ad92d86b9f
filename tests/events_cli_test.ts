import assert from "node:assert/strict";
import { cli, spawnCli } from "./_test_utils.ts";
import { EVENT_TYPES } from "../events/mod.ts";
import { eventLine } from "../events/_test_utils.ts";

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
  assert.deepEqual(JSON.parse(json.stdout), {
    schemaVersion: 1,
    command: "events --types",
    ok: true,
    config: null,
    problems: [],
    types: EVENT_TYPES,
  });
});

Deno.test("events --limit 0 streams every format: json stays one valid array, table aligned", async () => {
  const { dir } = fixture();
  for (const limit of ["0", "3"]) {
    const j = await cli(["events", "--limit", limit, "--format", "json"], { cwd: dir });
    assert.equal(j.code, 0, j.stderr);
    const parsed = JSON.parse(j.stdout);
    assert.equal(parsed.length, limit === "0" ? 200 : 3);
    assert.equal(parsed.at(-1).seq, 199);
    assert.equal(j.stdout, JSON.stringify(parsed, null, 2) + "\n"); // as toJson prints it
  }
  const none = await cli(["events", "--limit", "0", "--format", "json", "--type", "x.*"], {
    cwd: dir,
  });
  assert.deepEqual([none.code, none.stdout], [0, "[]\n"]);
  const t = await cli(["events", "--limit", "0"], { cwd: dir });
  assert.equal(t.code, 0, t.stderr);
  const [header, ...rows] = t.stdout.trimEnd().split("\n");
  assert.match(header, /^ts\s+level\s+source\s+event\s+work_item\s+summary$/);
  assert.equal(rows.length, 200);
  for (const name of ["level", "source", "event", "work_item", "summary"]) {
    const col = header.indexOf(name);
    for (const row of rows) assert.match(row.slice(col - 2), /^ {2}\S/, `${name} in ${row}`);
  }
  assert.match(rows[199], /\bseq=199$/);
});

Deno.test("events --work-item takes owner/repo#N and host/owner/repo#N for github: refs", async () => {
  const dir = Deno.makeTempDirSync();
  const refs = ["github:acme/app#12", "github:ghe.example.com/acme/app#12", "github:acme/app#1"];
  const lines = refs.map((ref, seq) =>
    eventLine({ seq, work_item: seq === 1 ? { ref, kind: "issue" } : ref })
  );
  Deno.writeTextFileSync(`${dir}/events.jsonl`, lines.join("\n") + "\n");
  const pick = (ref: string) => seqs(["--file", "events.jsonl", "--work-item", ref], dir);
  assert.deepEqual(await pick("acme/app#12"), [0]);
  assert.deepEqual(await pick("github:acme/app#12"), [0]);
  assert.deepEqual(await pick("ghe.example.com/acme/app#12"), [1]);
  assert.deepEqual(await pick("github:ghe.example.com/acme/app#12"), [1]);
  assert.deepEqual(await pick("acme/app#2"), []);
  const types = await cli(["events", "--types"]);
  assert.match(
    types.stdout,
    /^ {4}work_item +string \| null — the work item's ref, e\.g\. github:owner\/repo#12/m,
  );
});

Deno.test("events on an unreadable log names it and where its path comes from (exit 1)", async () => {
  const dir = Deno.makeTempDirSync();
  const hint = "; check eventLog.path in the config or pass --file\n";
  Deno.mkdirSync(`${dir}/logs`);
  for (const extra of [[], ["--limit", "0"], ["--follow"]]) {
    const r = await cli(["events", "--file", "logs", ...extra], { cwd: dir });
    assert.equal(r.code, 1, extra.join(" "));
    assert.equal(
      r.stderr,
      `the-loop: cannot read the event log ${dir}/logs (Is a directory)${hint}`,
    );
    assert.equal(r.stdout, "");
  }
  const empty = await cli(["events", "--file", ""], { cwd: dir });
  assert.equal(empty.code, 1);
  assert.equal(empty.stderr, `the-loop: cannot read the event log "" (the path is empty)${hint}`);
});

Deno.test("events --types refuses query flags (exit 2), naming them", async () => {
  const dir = Deno.makeTempDirSync();
  const cases: [string[], string][] = [
    [["--follow"], "--follow"],
    [["--type", "hooks.*"], "--type"],
    [["--limit", "5"], "--limit"],
    [["--file", "x.jsonl", "--level", "error"], "--file, --level"],
    [["--work-item", "acme/app#1"], "--work-item"],
  ];
  for (const [args, named] of cases) {
    const r = await cli(["events", "--types", ...args], { cwd: dir });
    assert.equal(r.code, 2, args.join(" "));
    assert.equal(
      r.stderr,
      `the-loop: --types prints the catalog and takes no query flags (got ${named}); ` +
        "drop --types to query the log\n",
    );
    assert.equal(r.stdout, "");
  }
  const ok = await cli(["events", "--types", "--format", "json"], { cwd: dir });
  assert.equal(ok.code, 0, ok.stderr);
});

/**
 * Reads `reader` until `seen.text` matches `want`. Bounded: a child that prints nothing more
 * would leave `reader.read()` pending forever, so a timer cancels the reader after `ms`.
 */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  seen: { text: string },
  want: RegExp,
  ms = 20_000,
): Promise<void> {
  const decoder = new TextDecoder();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    reader.cancel().catch(() => {});
  }, ms);
  try {
    while (!want.test(seen.text)) {
      const { value, done } = await reader.read();
      if (timedOut) throw new Error(`no ${want} in output within ${ms} ms: ${seen.text}`);
      if (done) throw new Error(`output ended before ${want}: ${seen.text}`);
      seen.text += decoder.decode(value, { stream: true });
    }
  } finally {
    clearTimeout(timer);
  }
}

/** Interrupts `child` and resolves to its status; a child that ignores SIGINT is killed. */
async function stop(child: Deno.ChildProcess): Promise<Deno.CommandStatus> {
  child.kill("SIGINT");
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  try {
    return await child.status;
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("readUntil gives up on a child that prints nothing, instead of hanging", async () => {
  const dir = Deno.makeTempDirSync();
  // following a log that does not exist: it waits, printing nothing on stdout
  const child = spawnCli(["events", "--follow", "--file", "none.jsonl"], { cwd: dir });
  const reader = child.stdout.getReader();
  let guard: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      assert.rejects(
        readUntil(reader, { text: "" }, /never/, 300),
        /no \/never\/ in output within 300 ms/,
      ),
      new Promise((_, reject) =>
        guard = setTimeout(() => reject(new Error("readUntil hung")), 15_000)
      ),
    ]);
  } finally {
    clearTimeout(guard);
    reader.releaseLock();
    await stop(child);
    await child.stderr.cancel();
  }
});

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
  let status: Deno.CommandStatus;
  try {
    await readUntil(reader, seen, /"seq":196/);
    const rec = (seq: number, event: string) =>
      eventLine({ ts: new Date().toISOString(), event, seq }) + "\n";
    Deno.writeTextFileSync(path, rec(1000, "hooks.failed") + rec(1001, "hooks.ran"), {
      append: true,
    });
    await readUntil(reader, seen, /"seq":1001/);
  } finally {
    reader.releaseLock();
    status = await stop(child);
  }
  await child.stdout.cancel();
  const stderr = new TextDecoder().decode(await new Response(child.stderr).arrayBuffer());
  assert.equal(status.code, 0, stderr);
  const seqsOut = seen.text.trim().split("\n").map((l) => JSON.parse(l).seq);
  assert.deepEqual(seqsOut, [196, 1001]);
});

// deno-lint-ignore no-control-regex
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

Deno.test("events table and text show a record's terminal escapes inertly; jsonl keeps them exact", async () => {
  const dir = Deno.makeTempDirSync();
  const records = [
    { // a hook's refusal that writes the clipboard (OSC 52) and clears the screen
      ts: "2026-07-22T10:00:00.000Z",
      source: "hooks",
      event: "hooks.refused",
      level: "warning",
      pid: 1,
      point: "work_item_start",
      hook: "\x1b]52;c;ZXZpbA\x07",
      reason: "\x1b]52;c;ZXZpbA==\x07\x1b[2J",
      work_item: "github:acme/app#1\x1b[2J",
    },
    { // the second spelling: a C1 CSI, a carriage return overwrite, a bidi override
      ts: "2026-07-22T10:00:01.000Z",
      source: "hooks\x9b2J",
      event: "hooks.refused\u202e",
      level: "warning",
      pid: 1,
      "k\x1bey": "v",
      reason: "FAILED\rpassed",
      hook: "gate\u202eetag",
    },
  ];
  Deno.writeTextFileSync(
    `${dir}/events.jsonl`,
    records.map((r) => JSON.stringify(r) + "\n").join(""),
  );
  for (const format of ["table"]) {
    const r = await cli(["events", "--file", "events.jsonl", "--format", format], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, RAW_CONTROL, format);
    for (
      const shown of [
        "hook=\\e]52;c;ZXZpbA\\x07", // the escape itself, inert
        'reason="\\u001b]52;c;ZXZpbA==\\u0007\\u001b[2J"', // a quoted value: JSON's escape
        "github:acme/app#1\\e[2J",
        "hooks\\x9b2J",
        "hooks.refused\\u{202e}",
        "k\\eey=v",
        'reason="FAILED\\rpassed"',
        "hook=gate\\u{202e}etag",
      ]
    ) assert.ok(r.stdout.includes(shown), `${format}: ${shown} in ${r.stdout}`);
  }
  for (const format of ["jsonl", "json"]) {
    const r = await cli(["events", "--file", "events.jsonl", "--format", format], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    const parsed = format === "json"
      ? JSON.parse(r.stdout)
      : r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(parsed, records); // the exact text, escaped by JSON
    // deno-lint-ignore no-control-regex
    assert.doesNotMatch(r.stdout, /[\x00-\x09\x0b-\x1f]/); // JSON escapes C0 itself
  }
});

Deno.test("events --follow skips a line over the 1 MiB cap with a note and reads on", async () => {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/events.jsonl`;
  const rec = (seq: number) => eventLine({ ts: new Date().toISOString(), seq }) + "\n";
  Deno.writeTextFileSync(path, rec(1));
  const child = spawnCli(["events", "--follow", "--file", path, "--format", "jsonl"], { cwd: dir });
  const reader = child.stdout.getReader();
  const seen = { text: "" };
  let status: Deno.CommandStatus;
  const offset = Deno.statSync(path).size;
  const big = '{"event":"hooks.ran","pad":"' + "x".repeat(2 * 1024 * 1024) + '"}\n';
  try {
    await readUntil(reader, seen, /"seq":1\b/);
    Deno.writeTextFileSync(path, big + rec(2), { append: true });
    await readUntil(reader, seen, /"seq":2\b/);
  } finally {
    reader.releaseLock();
    status = await stop(child);
  }
  await child.stdout.cancel();
  const stderr = new TextDecoder().decode(await new Response(child.stderr).arrayBuffer());
  assert.equal(status.code, 0, stderr);
  assert.deepEqual(seen.text.trim().split("\n").map((l) => JSON.parse(l).seq), [1, 2]);
  assert.equal(
    stderr,
    `the-loop: skipped 1 line(s) over the 1 MiB line cap in ${path}, unread: 2.0 MiB at byte ${offset}\n`,
  );
});

Deno.test("events --format offers only distinct formats: text is a usage error naming table", async () => {
  const r = await cli(["events", "--format", "text"]);
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /argument 'text' is invalid\. events prints a table for people: use --format table/,
  );
});
