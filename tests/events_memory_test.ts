/**
 * `the-loop events` reads and prints in constant memory: over a log several times larger than
 * the heap it is allowed, every query still completes, `--limit 0` in every format included. A
 * reader that held the file (or every match) in memory would die of heap exhaustion here,
 * whatever the machine's speed.
 *
 * The cap leaves room: the CLI itself holds about 8 MB after it loads, and the reader's live heap
 * peaks 3–5 MB above that while the collector runs. At a 16 MB cap about one query in 60 died
 * anyway (a collection that came late), which made CI red at random; at 24 MB none of 200 did.
 */
import assert from "node:assert/strict";
import { baseEnv, taskArgs } from "./_test_utils.ts";

const HEAP_MB = 24;
/** The over-long record's size: more than the whole heap. */
const LONG_MIB = 32;
const LINES = 300_000; // ~104 MB: four times the heap

async function writeLog(path: string): Promise<void> {
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const enc = new TextEncoder();
  const pad = "x".repeat(200);
  try {
    for (let start = 0; start < LINES; start += 10_000) {
      let chunk = "";
      for (let i = start; i < start + 10_000; i++) {
        chunk += JSON.stringify({
          ts: "2026-11-29T10:00:00.000Z",
          source: "poll",
          event: i % 4 === 0 ? "hooks.ran" : "poll.cycle",
          level: "info",
          pid: 1,
          work_item: `github:acme/app#${i % 40}`,
          n: i,
          pad,
        }) + "\n";
      }
      await file.write(enc.encode(chunk));
    }
  } finally {
    file.close();
  }
}

async function events(args: string[], cwd: string) {
  const args_ = taskArgs();
  // `deno run <flags> main.ts …`: the heap cap goes among the flags, before main.ts
  const main = args_.findIndex((a) => a.endsWith("main.ts"));
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      ...args_.slice(0, main),
      `--v8-flags=--max-old-space-size=${HEAP_MB}`,
      ...args_.slice(main),
      "events",
      ...args,
    ],
    cwd,
    env: baseEnv(cwd),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test(`events queries a log four times its ${HEAP_MB} MB heap cap`, async () => {
  const dir = await Deno.makeTempDir({ prefix: "the-loop-events-mem-" });
  const log = `${dir}/events.jsonl`;
  try {
    await writeLog(log);
    assert.ok((await Deno.stat(log)).size > 4 * HEAP_MB * 1024 * 1024);

    const tail = await events(["--file", log, "--limit", "100", "--format", "jsonl"], dir);
    assert.equal(tail.code, 0, tail.stderr);
    const last = tail.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(last.length, 100);
    assert.equal(last.at(-1).n, LINES - 1);

    const all = await events(
      ["--file", log, "--type", "hooks.*", "--limit", "0", "--format", "jsonl"],
      dir,
    );
    assert.equal(all.code, 0, all.stderr);
    assert.equal(all.stdout.trim().split("\n").length, LINES / 4);

    // --limit 0 without filters: every record, in every format, still within the heap
    const table = await events(["--file", log, "--limit", "0"], dir);
    assert.equal(table.code, 0, table.stderr);
    const rows = table.stdout.trimEnd().split("\n");
    assert.match(rows[0], /^ts\s+level\s+source\s+event\s+work_item\s+summary$/);
    assert.equal(rows.length, LINES + 1);
    assert.match(rows[LINES], new RegExp(`\\bn=${LINES - 1}\\b`));

    const json = await events(["--file", log, "--limit", "0", "--format", "json"], dir);
    assert.equal(json.code, 0, json.stderr);
    const records = JSON.parse(json.stdout) as { n: number }[];
    assert.equal(records.length, LINES);
    assert.equal(records[LINES - 1].n, LINES - 1);

    const one = await events(
      ["--file", log, "--work-item", "github:acme/app#7", "--limit", "5", "--format", "json"],
      dir,
    );
    assert.equal(one.code, 0, one.stderr);
    const picked = JSON.parse(one.stdout) as { n: number }[];
    assert.deepEqual(picked.map((r) => r.n), [193, 153, 113, 73, 33].map((d) => LINES - d));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test(`events skips a ${LONG_MIB} MiB record within a ${HEAP_MB} MB heap: tail read and scan`, async () => {
  const dir = await Deno.makeTempDir({ prefix: "the-loop-events-long-" });
  const log = `${dir}/events.jsonl`;
  const rec = (n: number, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      ts: "2026-11-29T10:00:00.000Z",
      source: "hooks",
      event: n % 2 ? "hooks.ran" : "poll.cycle",
      level: "info",
      pid: 1,
      n,
      ...extra,
    }) + "\n";
  try {
    let head = "";
    for (let n = 0; n < 2000; n++) head += rec(n);
    // a hooks.ran record whose field holds more than the cap: parsing it (or gathering it into one
    // string) needs more heap than there is, so the reader must skip it as it reads it
    const big = rec(2000, { event: "hooks.ran", stdout: "x".repeat(LONG_MIB * 1024 * 1024) });
    await Deno.writeTextFile(log, head + big + rec(2001) + rec(2002) + rec(2003));
    const note = new RegExp(
      `^the-loop: skipped 1 line\\(s\\) over the 1 MiB line cap in ${log}, ` +
        `unread: ${LONG_MIB}\\.0 MiB at byte ${head.length}\\n$`,
    );
    const ns = (jsonl: string) => jsonl.trim().split("\n").map((l) => JSON.parse(l).n);

    const tail = await events(["--file", log, "--limit", "5", "--format", "jsonl"], dir);
    assert.equal(tail.code, 0, tail.stderr);
    assert.deepEqual(ns(tail.stdout), [1997, 1998, 1999, 2001, 2002, 2003].slice(1));
    assert.match(tail.stderr, note);

    const scan = await events(["--file", log, "--type", "hooks.*", "--limit", "3"], dir);
    assert.equal(scan.code, 0, scan.stderr);
    const rows = scan.stdout.trimEnd().split("\n").slice(1);
    assert.deepEqual(rows.map((r) => /\bn=(\d+)/.exec(r)?.[1]), ["1999", "2001", "2003"]);
    assert.match(scan.stderr, note);

    // json keeps stdout one valid array; the note goes to stderr
    const json = await events(["--file", log, "--limit", "0", "--format", "json"], dir);
    assert.equal(json.code, 0, json.stderr);
    assert.equal((JSON.parse(json.stdout) as unknown[]).length, 2003);
    assert.match(json.stderr, note);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
