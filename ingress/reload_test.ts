// The live ingress's hot reload with the sessions dispatcher, against the fake GitHub on loopback:
// an edit whose loops do not read is refused whole at file:line:col — the loops and routing.loop
// in force stay — and a later good edit is taken.
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadConfig } from "../config/mod.ts";
import { Trouble } from "../daemon/mod.ts";
import { SessionDispatcher } from "../dispatch/mod.ts";
import { MemorySink } from "../events/mod.ts";
import { FakeGitHub } from "../tests/fake_github/mod.ts";
import { openLiveIngress } from "./reload.ts";

const TOKEN = "t0k";
const REF = "github:octo/repo#1";

/** The config: `quick` in force, and `extra` (more loops) after it. */
function configText(apiUrl: string, root: string, loop: string, extra = ""): string {
  return [
    `github: { apiUrl: "${apiUrl}" }`,
    `state: { root: "${root}" }`,
    `webhooks: { ghWebhook: { routing: { runner: process, loop: ${loop} } } }`,
    "loops:",
    "  quick:",
    "    start: work",
    "    nodes:",
    "      work: { actor: agent, next: { done: finished } }",
    "      finished: { terminal: true }",
    extra,
  ].join("\n");
}

Deno.test("a reload whose loops do not read is refused at file:line:col; the loops and routing.loop in force stay", async () => {
  await using gh = await FakeGitHub.start({ token: TOKEN });
  const dir = await Deno.makeTempDir({ prefix: "the-loop-ingress-reload-" });
  const path = join(dir, "cli-config.yaml");
  const root = join(dir, "state");
  await Deno.writeTextFile(path, configText(gh.url, root, "quick"));
  const env = (name: string) => (name === "HOME" ? dir : undefined);
  const loaded = await loadConfig({ flag: path, env, cwd: dir });
  const events = new MemorySink();
  const warnings: string[] = [];
  const live = await openLiveIngress({
    loaded,
    token: TOKEN,
    env,
    cwd: dir,
    events,
    warn: (m) => warnings.push(m),
    trouble: new Trouble({ prefix: "test", warn: (m) => warnings.push(m) }),
  });
  try {
    const dispatcher = live.ingress.dispatcher;
    assert.ok(dispatcher instanceof SessionDispatcher);
    const advance = async () =>
      (await dispatcher.act({ verb: "advance", ref: REF, outcome: "done" }, { via: "poll" }))
        .message;
    assert.match(await advance(), /has not entered a loop/);
    const before = live.ingress.config;

    // one edit: a loop whose node goes nowhere, and every item routed to it
    const ghost = [
      "  ghost:",
      "    start: work",
      "    nodes:",
      "      work: { actor: agent, next: { done: nowhere } }",
    ].join("\n");
    await Deno.writeTextFile(path, configText(gh.url, root, "ghost", ghost));
    for (let i = 0; i < 3; i++) assert.equal(await live.refresh(), before);
    assert.equal(live.ingress.config.webhooks.ghWebhook.routing.loop, "quick");
    const failed = events.ofType("config.reload_failed");
    assert.equal(failed.length, 1);
    const problems = failed[0].problems as string[];
    assert.ok(
      problems.some((p) => /cli-config\.yaml:\d+:\d+: loops\.ghost\..*nowhere/.test(p)),
      problems.join("\n"),
    );
    assert.deepEqual(events.ofType("config.reloaded"), []);
    const refused = warnings.filter((w) => w.startsWith("config edit refused"));
    assert.equal(refused.length, 1);
    assert.match(refused[0], /cli-config\.yaml:\d+:\d+: loops\.ghost\./);
    // the dispatcher never saw it: no fallback warning, the item still walks `quick`
    assert.deepEqual(warnings.filter((w) => w.includes("the new loops were refused")), []);
    assert.match(await advance(), /has not entered a loop/);
    assert.deepEqual(events.ofType("loop.unknown"), []);

    // mended: taken, routing.loop with it
    await Deno.writeTextFile(
      path,
      configText(gh.url, root, "ghost", `${ghost}\n      nowhere: { terminal: true }`),
    );
    const after = await live.refresh();
    assert.equal(after.webhooks.ghWebhook.routing.loop, "ghost");
    assert.equal(events.ofType("config.reloaded").length, 1);
    assert.equal(events.ofType("config.reload_failed").length, 1);
    assert.match(await advance(), /has not entered a loop/);
    assert.deepEqual(events.ofType("loop.unknown"), []);
  } finally {
    await live.close();
    await Deno.remove(dir, { recursive: true });
  }
});
