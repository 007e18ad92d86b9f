import assert from "node:assert/strict";
import { delay } from "./delay.ts";
import { countingController } from "./_test_utils.ts";

Deno.test("delay: resolves after the time, and takes its listener with it", async () => {
  const { ctl, listeners } = countingController();
  const waited = delay(5, { signal: ctl.signal });
  assert.equal(listeners(), 1);
  assert.equal(await waited, undefined);
  assert.equal(listeners(), 0);
});

Deno.test("delay: an abort rejects with the signal's reason and clears the timer", async () => {
  const ctl = new AbortController();
  const waited = delay(60_000, { signal: ctl.signal });
  const why = new Error("stopping");
  ctl.abort(why);
  // the test's op sanitizer fails it if the minute-long timer were still pending
  await assert.rejects(waited, (err) => err === why);
});

Deno.test("delay: an aborted signal rejects at once, no timer started", async () => {
  const why = new Error("already");
  await assert.rejects(delay(60_000, { signal: AbortSignal.abort(why) }), (err) => err === why);
});

Deno.test("delay: persistent false does not keep the process alive, yet still resolves", async () => {
  const child = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { delay } from ${JSON.stringify(new URL("./delay.ts", import.meta.url).href)};` +
      `delay(60_000, { persistent: false }).then(() => console.log("late"));` +
      `await delay(1, { persistent: false }); console.log("early");`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(child.code, 0, new TextDecoder().decode(child.stderr));
  assert.equal(new TextDecoder().decode(child.stdout), "early\n");
});
