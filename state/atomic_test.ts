import assert from "node:assert/strict";
import { join } from "node:path";
import { writeFileAtomic } from "./atomic.ts";

const tempDir = () => Deno.makeTempDirSync({ prefix: "the-loop-atomic-" });
const entries = (dir: string) => [...Deno.readDirSync(dir)].map((e) => e.name).sort();

Deno.test("writes text and bytes, creating missing parent directories", async () => {
  const dir = tempDir();
  await writeFileAtomic(join(dir, "a/b/c.txt"), "hello");
  assert.equal(Deno.readTextFileSync(join(dir, "a/b/c.txt")), "hello");
  await writeFileAtomic(join(dir, "bytes.bin"), new Uint8Array([1, 2, 3]));
  assert.deepEqual([...Deno.readFileSync(join(dir, "bytes.bin"))], [1, 2, 3]);
});

Deno.test("replaces an existing file and leaves no temp file behind", async () => {
  const dir = tempDir();
  const path = join(dir, "f.json");
  Deno.writeTextFileSync(path, "old");
  await writeFileAtomic(path, "new");
  assert.equal(Deno.readTextFileSync(path), "new");
  assert.deepEqual(entries(dir), ["f.json"]);
});

Deno.test("applies the requested mode, else keeps the replaced file's mode", {
  ignore: Deno.build.os === "windows",
}, async () => {
  const dir = tempDir();
  const secret = join(dir, "secret");
  await writeFileAtomic(secret, "s", { mode: 0o600 });
  assert.equal(Deno.statSync(secret).mode! & 0o777, 0o600);
  await writeFileAtomic(secret, "t"); // no mode given: stays 0600
  assert.equal(Deno.statSync(secret).mode! & 0o777, 0o600);
});

Deno.test("a failed rename leaves the target as it was and no temp file", async () => {
  const dir = tempDir();
  const target = join(dir, "taken");
  Deno.mkdirSync(join(target, "inside"), { recursive: true }); // a non-empty dir cannot be replaced
  await assert.rejects(() => writeFileAtomic(target, "data"));
  assert.deepEqual(entries(dir), ["taken"]);
  assert.deepEqual(entries(target), ["inside"]);
});

/** Runs writeFileAtomic(target, 4 MiB) in a child whose file size limit is 512 KiB. */
async function writeBigUnderLimit(dir: string, target: string, opts: { ignoreSignal: boolean }) {
  const script = join(dir, "write_big.ts");
  const atomic = new URL("./atomic.ts", import.meta.url).href;
  Deno.writeTextFileSync(
    script,
    `import { writeFileAtomic } from ${JSON.stringify(atomic)};
try {
  await writeFileAtomic(${JSON.stringify(target)}, new Uint8Array(4 * 1024 * 1024));
  console.log("wrote");
} catch (e) { console.log("failed: " + e.message); }`,
  );
  // `ulimit -f 1024` (512-byte blocks): the write stops part-way. With SIGXFSZ ignored the write
  // call fails (EFBIG); with the default action the process is killed mid-write, like a crash.
  const trap = opts.ignoreSignal ? "trap '' XFSZ; " : "";
  const out = await new Deno.Command("sh", {
    args: [
      "-c",
      `${trap}ulimit -f 1024 && exec "$0" run --cached-only -A "$1"`,
      Deno.execPath(),
      script,
    ],
    stdout: "piped",
    stderr: "null",
  }).output();
  Deno.removeSync(script);
  return { code: out.code, stdout: new TextDecoder().decode(out.stdout).trim() };
}

Deno.test("a write that fails part-way throws, keeps the old file and removes its temp file", {
  ignore: Deno.build.os === "windows",
}, async () => {
  const dir = tempDir();
  const target = join(dir, "state.json");
  Deno.writeTextFileSync(target, "old content");
  const r = await writeBigUnderLimit(dir, target, { ignoreSignal: true });
  assert.match(r.stdout, /^failed: /);
  assert.equal(Deno.readTextFileSync(target), "old content");
  assert.deepEqual(entries(dir), ["state.json"]);
});

Deno.test("a process killed mid-write leaves the old file intact", {
  ignore: Deno.build.os === "windows",
}, async () => {
  const dir = tempDir();
  const target = join(dir, "state.json");
  Deno.writeTextFileSync(target, "old content");
  const r = await writeBigUnderLimit(dir, target, { ignoreSignal: false });
  assert.notEqual(r.code, 0);
  assert.equal(r.stdout, ""); // it died inside the write, before printing either outcome
  assert.equal(Deno.readTextFileSync(target), "old content");
});

Deno.test("durable: false writes the same way (atomic, mode kept), only without the disk flush", {
  ignore: Deno.build.os === "windows",
}, async () => {
  const dir = tempDir();
  const path = join(dir, "s.json");
  await writeFileAtomic(path, "one", { mode: 0o600 });
  await writeFileAtomic(path, "two", { durable: false });
  assert.equal(Deno.readTextFileSync(path), "two");
  assert.equal(Deno.statSync(path).mode! & 0o777, 0o600);
  assert.deepEqual(entries(dir), ["s.json"]);
});
