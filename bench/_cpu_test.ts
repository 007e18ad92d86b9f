import assert from "node:assert/strict";
import { cpuMsSince, cpuNs } from "./_cpu.ts";

Deno.test("cpuNs and cpuMsSince count the CPU a process's threads used between two readings", {
  ignore: Deno.build.os !== "linux",
}, async () => {
  // told to go, the child spins until it has used 300 ms more CPU by its own count, says so, waits
  const child = new Deno.Command("python3", {
    args: [
      "-c",
      "import sys, time\nsys.stdin.readline()\nt = time.process_time() + 0.3\nwhile time.process_time() < t: pass\nprint('spun', flush=True)\nsys.stdin.read()",
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  try {
    const before = await cpuNs([child.pid]);
    await writer.write(new TextEncoder().encode("go\n"));
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    assert.equal((await reader.read()).value?.trim(), "spun");
    reader.releaseLock();
    const used = cpuMsSince(before, await cpuNs([child.pid]));
    assert.ok(used !== null && used >= 295 && used < 5_000, `used ${used} ms`);
  } finally {
    await writer.close().catch(() => {}); // the child's wait ends
    await child.status;
    await child.stdout.cancel().catch(() => {});
  }
  // a process that is gone reads as nothing, not as zero
  const gone = await cpuNs([child.pid]);
  assert.equal(gone.get(child.pid), null);
  assert.equal(cpuMsSince(gone, gone), null);
});
