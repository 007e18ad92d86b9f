import assert from "node:assert/strict";
import { newSpinner, parseReadings, parseStatLine } from "./_thread_cpu.ts";

/** A `tid/stat:` line as the reading script prints it, with `ticks` of user time. */
function stat(tid: number, comm: string, state: string, ticks: number): string {
  const rest = ["1", "1", "1", "0", "-1", "0", "0", "0", "0", "0", String(ticks), "0", "0"];
  return `${tid}/stat:${tid} (${comm}) ${state} ${rest.join(" ")}`;
}

Deno.test("thread stat lines: name (spaces and parentheses too) and utime + stime ticks", () => {
  assert.deepEqual(parseStatLine(stat(41, "worker-3", "R", 12)), {
    tid: "41",
    comm: "worker-3",
    ticks: 12,
  });
  assert.equal(parseStatLine(stat(42, "odd) name (x", "S", 5))?.comm, "odd) name (x");
  assert.equal(parseStatLine("garbage"), null);
});

Deno.test("the stuck worker is the one worker thread that burned CPU, known spinners left out", () => {
  const text = [
    stat(10, "deno", "S", 500),
    stat(11, "worker-1", "R", 1000),
    stat(12, "worker-2", "S", 3),
    stat(13, "worker-3", "S", 7),
    "--",
    stat(10, "deno", "R", 540), // the host itself does not count
    stat(11, "worker-1", "R", 1020), // a spinner leaked earlier
    stat(12, "worker-2", "S", 3),
    stat(13, "worker-3", "S", 7),
  ].join("\n") + "\n";
  const readings = parseReadings(text)!;
  assert.deepEqual([...readings[0].keys()], ["11", "12", "13"]);
  assert.equal(newSpinner(readings, 200, new Set(["11"])), null, "blocked: nothing new burned CPU");
  assert.equal(newSpinner(readings, 200, new Set()), "11");
  // 5 ticks (50 ms) of a 200 ms window is a quarter of a core: spinning
  const busy = parseReadings(
    `${stat(13, "worker-3", "R", 0)}\n--\n${stat(13, "worker-3", "R", 5)}\n`,
  )!;
  assert.equal(newSpinner(busy, 200, new Set()), "13");
  const idle = parseReadings(
    `${stat(13, "worker-3", "S", 0)}\n--\n${stat(13, "worker-3", "S", 4)}\n`,
  )!;
  assert.equal(newSpinner(idle, 200, new Set()), null);
  assert.equal(parseReadings("no separator"), null);
});
