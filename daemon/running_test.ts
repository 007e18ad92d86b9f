/** `runDaemon`: the table of `daemon/running.ts`, row by row. */
import assert from "node:assert/strict";
import { runDaemon } from "./running.ts";

Deno.test("runDaemon: ready says the value, stop() aborts the body's signal, stopped says why", async () => {
  const d = runDaemon<string, string>(async ({ ready, stopping }) => {
    ready("up");
    ready("again"); // ignored
    await new Promise((resolve) => stopping.addEventListener("abort", resolve));
    return "stopped";
  });
  assert.equal(await d.ready, "up");
  assert.equal(await d.stop(), "stopped");
  assert.equal(await d.stopped, "stopped");
  assert.equal(await d.stop(), "stopped", "a second stop is the same end");
});

Deno.test("runDaemon: a failure before ready rejects both; after ready, only stopped", async () => {
  const early = runDaemon(() => Promise.reject(new Error("no lock")));
  await assert.rejects(early.ready, /no lock/);
  await assert.rejects(early.stopped, /no lock/);
  const late = runDaemon<number, never>(({ ready }) => {
    ready(1);
    return Promise.reject(new Error("cycle blew up"));
  });
  assert.equal(await late.ready, 1);
  await assert.rejects(late.stopped, /cycle blew up/);
});

Deno.test("runDaemon: ending without ready rejects ready; the caller's signal is stop()", async () => {
  const quiet = runDaemon(() => Promise.resolve("done"));
  await assert.rejects(quiet.ready, /stopped before it was ready/);
  assert.equal(await quiet.stopped, "done");
  const caller = new AbortController();
  caller.abort();
  const d = runDaemon<void, boolean>(({ ready, stopping }) => {
    ready();
    return Promise.resolve(stopping.aborted);
  }, { signal: caller.signal });
  assert.equal(await d.stopped, true, "an aborted signal stops it at once");
});
