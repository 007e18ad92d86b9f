import assert from "node:assert/strict";
import { processEnding } from "./_messages.ts";

Deno.test("processEnding: a hook-host child's end, said with the hook's memory budget", () => {
  const opts = { maxMemoryMb: 16, memoryExitCode: 86 };
  assert.equal(processEnding({ code: 86, signal: null }, opts), "passed its memory cap (16 MiB)");
  assert.equal(processEnding({ code: 137, signal: "SIGKILL" }, opts), "was killed");
  // V8's own out-of-memory abort: a signal, and the budget the operator set (not the heap cap
  // with the runtime's room in it)
  assert.equal(
    processEnding({ code: 133, signal: "SIGTRAP" }, opts),
    "exited (signal SIGTRAP; out of memory? its budget is 16 MiB)",
  );
  assert.equal(
    processEnding({ code: 3, signal: null }, opts),
    "exited (code 3; out of memory? its budget is 16 MiB)",
  );
});
