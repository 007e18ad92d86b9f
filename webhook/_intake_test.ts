import assert from "node:assert/strict";
import { MemorySink } from "../events/mod.ts";
import { IntakeThread } from "./_intake.ts";
import { Receiver } from "./receiver.ts";

Deno.test("an intake worker that dies is reported once, and stopping it after that ends at once", async () => {
  const deaths: string[] = [];
  let died!: (message: string) => void;
  const death = new Promise<string>((resolve) => (died = resolve));
  const thread = await IntakeThread.start({
    hostname: "127.0.0.1",
    port: 0,
    path: "/gh-webhook",
    maxBodyBytes: 1024,
    route: true,
    maxJobs: 1,
    maxBytes: 1024,
    onDelivery: () => {},
    events: new MemorySink(),
    onDeath: (message) => (deaths.push(message), died(message)),
    workerUrl: new URL("./testdata/dying_intake.ts", import.meta.url),
  });
  assert.match(await death, /the intake blew up/);
  assert.equal(await thread.stop({ graceMs: 1000 }), false);
  assert.equal(deaths.length, 1);
});

Deno.test("a receiver whose intake dies records webhook.failed and tells its owner", async () => {
  const events = new MemorySink({ strict: true });
  let died!: (message: string) => void;
  const death = new Promise<string>((resolve) => (died = resolve));
  const receiver = await Receiver.start({
    hostname: "127.0.0.1",
    port: 0,
    path: "/gh-webhook",
    events,
    onDeath: died,
    intakeUrl: new URL("./testdata/dying_intake.ts", import.meta.url),
  });
  assert.match(await death, /the intake blew up/);
  const [failed] = events.ofType("webhook.failed");
  assert.match(failed.error as string, /the intake blew up/);
  assert.equal(failed.level, "error");
  const report = await receiver.stop({ graceMs: 1000 });
  assert.equal(report.requestsFinished, false);
  assert.equal(events.ofType("webhook.failed").length, 1);
});
