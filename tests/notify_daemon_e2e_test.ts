/**
 * Notifications from a running daemon, end to end: the real `poll start` against the fake
 * GitHub, fake `claude`s in real tmux, and three webhook channels on a loopback server — one that
 * never answers, one that answers 500, one that records. The session spawns and a comment reaches
 * it while the first two hold or fail (sending never blocks dispatch); the recording channel gets
 * `work-item-spawned` and `hook-suspended` envelopes whose signature verifies; the event log has
 * the sends and failures and neither the secret nor a channel's URL path.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { join } from "node:path";
import { LoopsE2E, START, waitFor } from "./_loops_e2e_utils.ts";

const SECRET = "n0tify-e2e-s3cret-value";
const PATH_TOKEN = "T0KENINPATH";

interface Received {
  path: string;
  body: string;
  signature: string | null;
}

/** A loopback server: `/hang/…` never answers (until closed), `/fail/…` 500, `/ok/…` records. */
function channelServer() {
  const received: Received[] = [];
  const release = Promise.withResolvers<void>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const body = await req.text();
    if (path.startsWith("/hang")) {
      await release.promise;
      return new Response("late", { status: 200 });
    }
    if (path.startsWith("/fail")) return new Response("no", { status: 500 });
    received.push({ path, body, signature: req.headers.get("x-the-loop-signature-256") });
    return new Response("ok");
  });
  return {
    received,
    url: `http://127.0.0.1:${server.addr.port}`,
    async close() {
      release.resolve();
      await server.shutdown();
    },
  };
}

Deno.test("poll: notifications go out on their own queue: a hanging and a failing channel delay nothing; the envelope is signed; no secret in the log", async () => {
  const ch = channelServer();
  const fx = await LoopsE2E.open({
    harness: { E2E_NOTIFY_SECRET: SECRET },
    extraConfig: `  - name: licence
    command: [./hooks/fail.sh]
    on: [input_received]
    onError: suspend
collaborators:
  - handle: "@ops"
    roles: [engineer]
    notifications:
      channels:
        - { name: hang, type: webhook, url: "${ch.url}/hang/${PATH_TOKEN}", timeoutSeconds: 60 }
        - { name: fail, type: webhook, url: "${ch.url}/fail/${PATH_TOKEN}" }
        - { name: ok, type: webhook, url: "${ch.url}/ok/${PATH_TOKEN}", secretEnv: E2E_NOTIFY_SECRET }
notifications:
  events:
    work-item-spawned: [engineer]
    hook-suspended: [engineer]
`,
  });
  // the suspend hook fails only for a comment that says so
  await Deno.writeTextFile(
    join(fx.root, "hooks", "fail.sh"),
    `#!/bin/sh\ngrep -q PARK-ME && { echo "the licence server is down" >&2; exit 1; }\nexit 0\n`,
    { mode: 0o755 },
  );
  try {
    const d = await fx.poll();
    const n = fx.openIssue();
    fx.gh.world.addComment("octo/repo", n, START, "alice");
    await d.step();
    await waitFor("the session", async () => (await fx.harness()).some((e) => e.event === "boot"));
    fx.gh.world.addComment("octo/repo", n, "a note: FIX-3333", "alice");
    await d.step();
    const inputs = async () =>
      (await fx.harness()).filter((e) => e.event === "input").map((e) => e.line ?? "");
    await waitFor(
      "the comment in the session while a channel hangs",
      async () => (await inputs()).some((l) => l.includes("FIX-3333")),
      inputs,
    );
    fx.gh.world.addComment("octo/repo", n, "PARK-ME please", "alice");
    await d.step();
    const events = (name: string) => ch.received.filter((r) => JSON.parse(r.body).event === name);
    await waitFor(
      "work-item-spawned and hook-suspended on the recording channel",
      () => events("work-item-spawned").length === 1 && events("hook-suspended").length === 1,
      () => ch.received.map((r) => r.body),
    );
    for (const r of ch.received) {
      const want = "sha256=" + createHmac("sha256", SECRET).update(r.body).digest("hex");
      assert.equal(r.signature, want, "the signature verifies");
    }
    const suspended = JSON.parse(events("hook-suspended")[0].body);
    assert.equal(suspended.work_item, fx.ref(n));
    assert.equal(suspended.details.hook, "licence");
    assert.match(String(suspended.url), /github\.com\/octo\/repo\/issues\/\d+/);
    const log = async () => await Deno.readTextFile(join(fx.root, "logs", "events.jsonl"));
    await waitFor("a failed send", async () => (await log()).includes('"notify.failed"'));
    const text = await log();
    assert.ok(text.includes('"notify.sent"'));
    assert.ok(!text.includes(SECRET), "no secret in the event log");
    assert.ok(!text.includes(PATH_TOKEN), "no channel URL path in the event log");
    assert.ok(!d.out.stderr.includes(SECRET) && !d.out.stdout.includes(SECRET));
  } finally {
    await fx.close();
    await ch.close();
  }
});
