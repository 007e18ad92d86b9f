import assert from "node:assert/strict";
import { every, later } from "./later.ts";
import { until } from "./_test_utils.ts";

Deno.test("later: runs once after the time; its cancel is harmless afterwards", async () => {
  let runs = 0;
  const cancel = later(() => runs++, 1);
  await until(() => runs === 1, "the run");
  cancel();
  cancel();
  assert.equal(runs, 1);
});

Deno.test("later: cancelled before its time, it never runs (and leaves no timer)", () => {
  let ran = false;
  const cancel = later(() => ran = true, 60_000);
  cancel();
  assert.equal(ran, false);
});

Deno.test("every: runs at each interval until cancelled", async () => {
  let runs = 0;
  const cancel = every(() => runs++, 1);
  await until(() => runs >= 3, "three runs");
  cancel(); // an interval left running would fail the test's op sanitizer
  assert.ok(runs >= 3);
});

Deno.test("later and every: persistent false does not keep the process alive", async () => {
  const url = JSON.stringify(new URL("./later.ts", import.meta.url).href);
  const child = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { every, later } from ${url};` +
      `later(() => console.log("late"), 60_000, { persistent: false });` +
      `every(() => console.log("tick"), 60_000, { persistent: false });` +
      `console.log("done");`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(child.code, 0, new TextDecoder().decode(child.stderr));
  assert.equal(new TextDecoder().decode(child.stdout), "done\n");
});
