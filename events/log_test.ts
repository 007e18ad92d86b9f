import assert from "node:assert/strict";
import { EventLog } from "./mod.ts";

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function readRecords(path: string): Record<string, unknown>[] {
  return Deno.readTextFileSync(path).split("\n").filter((l) => l).map((l) => JSON.parse(l));
}

Deno.test("EventLog appends one JSON line per emit with the common fields", async () => {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/deep/er/events.jsonl`; // the parent directories do not exist yet
  const log = new EventLog({ path, source: "hooks" });
  log.emit("hooks.loaded", { count: 2, names: ["a", "b"] });
  log.emit("hooks.failed", { hook: "a", error: "boom" }, { level: "warning" });
  log.emit("hooks.loaded", { event: "spoof", level: "debug", pid: 1, ts: "x", source: "y" });
  assert.throws(() => Deno.statSync(path), Deno.errors.NotFound); // not before this code yields
  await Promise.resolve();
  const text = Deno.readTextFileSync(path);
  assert.ok(text.endsWith("\n"));
  const [a, b, c] = readRecords(path);
  assert.match(a.ts as string, ISO_MS);
  assert.deepEqual({ ...a, ts: "" }, {
    ts: "",
    source: "hooks",
    event: "hooks.loaded",
    level: "info", // from the catalog
    pid: Deno.pid,
    count: 2,
    names: ["a", "b"],
  });
  assert.equal(b.level, "warning"); // the emitter's level wins over the catalog's "error"
  assert.equal(b.error, "boom");
  // the common fields cannot be overwritten by same-named fields
  assert.deepEqual([c.event, c.level, c.pid, c.source], [
    "hooks.loaded",
    "info",
    Deno.pid,
    "hooks",
  ]);
  assert.match(c.ts as string, ISO_MS);
});

Deno.test("EventLog with enabled: false writes nothing and creates nothing", () => {
  const dir = Deno.makeTempDirSync();
  const log = new EventLog({ path: `${dir}/logs/events.jsonl`, source: "cli", enabled: false });
  log.emit("hooks.loaded", { count: 0, names: [] });
  assert.deepEqual([...Deno.readDirSync(dir)], []);
});

Deno.test("an unwritable log warns at once, not again within the minute, and never throws", () => {
  const dir = Deno.makeTempDirSync();
  const warnings: string[] = [];
  // the path is a directory: opening it for append fails (even as root)
  const log = new EventLog({ path: dir, source: "cli", warn: (m) => warnings.push(m) });
  for (let i = 0; i < 3; i++) log.emit("hooks.loaded", { count: i, names: [] }, { flush: true });
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], new RegExp(`cannot write the event log ${dir}`));
  // a parent that is a file: creating the directory fails
  Deno.writeTextFileSync(`${dir}/file`, "");
  const log2 = new EventLog({
    path: `${dir}/file/events.jsonl`,
    source: "cli",
    warn: (m) => warnings.push(m),
  });
  log2.emit("hooks.loaded", { count: 1, names: [] }, { flush: true });
  log2.emit("hooks.loaded", { count: 2, names: [] }, { flush: true });
  assert.equal(warnings.length, 2);
  // a warn callback that throws does not break the caller either
  const log3 = new EventLog({
    path: dir,
    source: "cli",
    warn: () => {
      throw new Error("x");
    },
  });
  log3.emit("hooks.loaded", { count: 1, names: [] }, { flush: true });
});

Deno.test("a failing log is said again every minute while it lasts, and its recovery is told", () => {
  const dir = Deno.makeTempDirSync();
  Deno.writeTextFileSync(`${dir}/file`, "");
  let now = 0;
  const warnings: string[] = [];
  const told: (string | undefined)[] = [];
  const log = new EventLog({
    path: `${dir}/file/events.jsonl`, // its parent is a file: fails even as root
    source: "cli",
    now: () => now,
    warn: (m) => warnings.push(m),
    onWriteError: (m) => told.push(m),
  });
  const emit = () => log.emit("hooks.loaded", { count: 0, names: [] }, { flush: true });
  emit();
  now += 59_999;
  emit();
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /said again every 60 s while it lasts/);
  now += 1;
  emit();
  assert.equal(warnings.length, 2, "said again a minute later");
  assert.equal(told.length, 3);
  assert.ok(log.failing);
  Deno.removeSync(`${dir}/file`);
  emit();
  assert.equal(told.at(-1), undefined, "the recovery is told");
  assert.ok(!log.failing);
  assert.match(Deno.readTextFileSync(`${dir}/file/events.jsonl`), /hooks\.loaded/);
});

Deno.test("a log on a full disk (/dev/full: ENOSPC) is said and told", async () => {
  // in a child with --allow-all: Deno asks for all access to open a device such as /dev/full,
  // which the suite's permissions (the \`the-loop\` task's) do not give
  const script = `
    import { EventLog } from ${JSON.stringify(new URL("./log.ts", import.meta.url).href)};
    const warnings = [];
    const told = [];
    const log = new EventLog({
      path: "/dev/full",
      source: "cli",
      warn: (m) => warnings.push(m),
      onWriteError: (m) => told.push(m),
    });
    log.emit("hooks.loaded", { count: 0, names: [] }, { flush: true });
    console.log(JSON.stringify({ warnings, told }));
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--cached-only", "--no-prompt", "-A", "--ext=ts", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.ok(out.success, stderr);
  const { warnings, told } = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.equal(warnings.length, 1);
  assert.match(told[0] ?? "", /cannot write the event log \/dev\/full \(.*(space|ENOSPC)/i);
});

Deno.test("a log rotated or deleted between writes is recreated, directory included", () => {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/logs/events.jsonl`;
  const log = new EventLog({ path, source: "cli" });
  log.emit("hooks.loaded", { count: 1, names: [] }, { flush: true });
  Deno.renameSync(path, `${path}.1`);
  log.emit("hooks.loaded", { count: 2, names: [] }, { flush: true });
  assert.deepEqual(readRecords(`${path}.1`).map((r) => r.count), [1]);
  assert.deepEqual(readRecords(path).map((r) => r.count), [2]);
  Deno.removeSync(`${dir}/logs`, { recursive: true });
  log.emit("hooks.loaded", { count: 3, names: [] }, { flush: true });
  assert.deepEqual(readRecords(path).map((r) => r.count), [3]);
  log.close();
});

Deno.test("with recheckMs the open file is trusted that long, then the path is checked again", () => {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/events.jsonl`;
  let now = 0;
  const log = new EventLog({ path, source: "cli", recheckMs: 20, now: () => now });
  log.emit("hooks.loaded", { count: 1, names: [] }, { flush: true });
  Deno.renameSync(path, `${path}.1`);
  now = 19; // within the window: still written to the file it has open (the rotated one)
  log.emit("hooks.loaded", { count: 2, names: [] }, { flush: true });
  now = 40; // past it: the path is looked at, and a new file made
  log.emit("hooks.loaded", { count: 3, names: [] }, { flush: true });
  assert.deepEqual(readRecords(`${path}.1`).map((r) => r.count), [1, 2]);
  assert.deepEqual(readRecords(path).map((r) => r.count), [3]);
  log.close();
});

Deno.test("records are written when the code yields; flush: true and flush() write at once", async () => {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/events.jsonl`;
  const log = new EventLog({ path, source: "cli" });
  log.emit("hooks.loaded", { count: 1, names: [] });
  log.emit("hooks.loaded", { count: 2, names: [] }, { flush: true }); // with the one before it
  assert.deepEqual(readRecords(path).map((r) => r.count), [1, 2]);
  log.emit("hooks.loaded", { count: 3, names: [] });
  assert.deepEqual(readRecords(path).map((r) => r.count), [1, 2]);
  log.flush();
  assert.deepEqual(readRecords(path).map((r) => r.count), [1, 2, 3]);
  log.emit("hooks.loaded", { count: 4, names: [] });
  await Promise.resolve();
  assert.deepEqual(readRecords(path).map((r) => r.count), [1, 2, 3, 4]);
  log.close();
});

Deno.test("with paceMs, records emitted soon after a write wait for the interval; flush() writes at once", async () => {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/events.jsonl`;
  const log = new EventLog({ path, source: "gh-webhook", paceMs: 30 });
  const counts = () => readRecords(path).map((r) => r.count);
  log.emit("hooks.loaded", { count: 1, names: [] });
  await Promise.resolve(); // after a quiet spell: at the end of the tick
  assert.deepEqual(counts(), [1]);
  log.emit("hooks.loaded", { count: 2, names: [] });
  log.emit("hooks.loaded", { count: 3, names: [] });
  await Promise.resolve(); // within 30 ms of the last write: held
  assert.deepEqual(counts(), [1]);
  const written = Promise.withResolvers<void>();
  const poll = setInterval(() => counts().length === 3 && written.resolve(), 2);
  await written.promise; // the paced write: both together
  clearInterval(poll);
  assert.deepEqual(counts(), [1, 2, 3]);
  log.emit("hooks.loaded", { count: 4, names: [] });
  log.flush();
  assert.deepEqual(counts(), [1, 2, 3, 4]);
  assert.equal(log.settings.paceMs, 30); // a worker writing to the same log is told the pace
  log.close(); // no timer is left behind (the test's sanitizer would say so)
});

Deno.test("records not yet written when the process calls Deno.exit are written at exit", async () => {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/events.jsonl`;
  const mod = JSON.stringify(new URL("./mod.ts", import.meta.url).href);
  const code = `import { EventLog } from ${mod};
const log = new EventLog({ path: ${JSON.stringify(path)}, source: "cli" });
log.emit("hooks.loaded", { count: 7, names: [] });
Deno.exit(3);`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-prompt", code],
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 3, new TextDecoder().decode(out.stderr));
  assert.deepEqual(readRecords(path).map((r) => r.count), [7]);
});

Deno.test("EventLog strict: an uncatalogued type throws; not strict it is written as info", () => {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/events.jsonl`;
  const uncatalogued = "no_such.type"; // a variable, so the catalog scan does not flag it
  assert.throws(
    () => new EventLog({ path, source: "cli", strict: true }).emit(uncatalogued),
    /'no_such\.type' is not in the catalog/,
  );
  new EventLog({ path, source: "cli" }).emit(uncatalogued, {}, { flush: true });
  assert.deepEqual(readRecords(path).map((r) => [r.event, r.level]), [[uncatalogued, "info"]]);
});

// A child process that appends `count` records through EventLog, some of them large.
const WRITER = (path: string, count: number, id: number) => `
import { EventLog } from ${JSON.stringify(new URL("./mod.ts", import.meta.url).href)};
const log = new EventLog({ path: ${JSON.stringify(path)}, source: "w${id}" });
for (let i = 0; i < ${count}; i++) {
  log.emit("hooks.ran", { writer: ${id}, seq: i, stdout: "x".repeat(i % 50 === 0 ? 20000 : i % 300) });
}
`;

Deno.test("4 processes × 2000 records append concurrently: every line whole, none lost", async () => {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/events.jsonl`;
  const [procs, count] = [4, 2000];
  const children = Array.from({ length: procs }, (_, id) =>
    new Deno.Command(Deno.execPath(), {
      args: ["eval", "--no-prompt", WRITER(path, count, id)],
      stdout: "null",
      stderr: "piped",
    }).output());
  for (const out of await Promise.all(children)) {
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  }
  const lines = Deno.readTextFileSync(path).split("\n");
  assert.equal(lines.pop(), ""); // ends with a newline
  assert.equal(lines.length, procs * count);
  const seen = Array.from({ length: procs }, () => new Set<number>());
  for (const line of lines) {
    const r = JSON.parse(line); // throws on a torn or interleaved line
    assert.equal(r.stdout.length, r.seq % 50 === 0 ? 20000 : r.seq % 300);
    seen[r.writer].add(r.seq);
  }
  for (const s of seen) assert.equal(s.size, count);
});

Deno.test("the records of one tick, emitBatch's included, are written in order with one write", () => {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/events.jsonl`;
  const log = new EventLog({ path, source: "hooks" });
  log.emit("hooks.loaded", { count: 0, names: [] });
  const writes: number[] = [];
  const open = Deno.openSync;
  // count the write calls the batch makes on the file it opens
  Deno.openSync = ((p: string | URL, o?: Deno.OpenOptions) => {
    const f = open(p, o);
    const write = f.writeSync.bind(f);
    f.writeSync = (b: Uint8Array) => {
      writes.push(b.length);
      return write(b);
    };
    return f;
  }) as typeof Deno.openSync;
  try {
    log.emitBatch([
      { event: "hooks.ran", fields: { hook: "a" } },
      { event: "hooks.decided", fields: { hook: "a", changed: ["prompt"] } },
      { event: "hooks.ran", fields: { hook: "b" }, level: "warning" },
    ]);
    log.flush();
  } finally {
    Deno.openSync = open;
  }
  assert.equal(writes.length, 1);
  const records = readRecords(path);
  assert.deepEqual(records.map((r) => [r.event, r.hook ?? null, r.level]), [
    ["hooks.loaded", null, "info"],
    ["hooks.ran", "a", "info"],
    ["hooks.decided", "a", "info"],
    ["hooks.ran", "b", "warning"],
  ]);
});
