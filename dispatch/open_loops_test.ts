import assert from "node:assert/strict";
import { join } from "node:path";
import { configFromText } from "../config/mod.ts";
import { ProblemsError } from "../errors.ts";
import { MemorySink } from "../events/mod.ts";
import { FakeGitHub } from "./_test_utils.ts";
import { openDispatch } from "./open.ts";

const LOOPS = `
webhooks: { ghWebhook: { routing: { runner: process, loop: quick } } }
loops:
  quick:
    start: work
    nodes:
      work: { actor: agent, next: { done: finished } }
      finished: { terminal: true }
`;

async function open(text: string, dir: string) {
  const file = join(dir, "c.yaml");
  const yaml = `state: { root: "${join(dir, "state")}" }\n${text}`;
  const { config, locate } = await configFromText(yaml, {
    file,
    env: () => undefined,
    cwd: dir,
  });
  const events = new MemorySink();
  const warnings: string[] = [];
  const stack = await openDispatch({
    config,
    github: new FakeGitHub(),
    token: "t",
    events,
    env: () => undefined,
    warn: (m) => warnings.push(m),
    cwd: dir,
    locate,
    configPath: file,
  });
  return { stack, events, warnings, config };
}

Deno.test("openDispatch reads the config's loops; a reload that does not read keeps the previous", async () => {
  const dir = await Deno.makeTempDir();
  const { stack, warnings, config } = await open(LOOPS, dir);
  const act = () =>
    stack.dispatcher.act({ verb: "advance", ref: "github:octo/repo#1", outcome: "done" }, {
      via: "poll",
    });
  // the loop is known (not-started, not "no loop runs")
  assert.match((await act()).message, /has not entered a loop/);
  const broken = structuredClone(config);
  (broken.loops as Record<string, unknown>).quick = { start: "nowhere", nodes: {} };
  await stack.reconfigure(broken);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /the new loops were refused, keeping the previous ones/);
  assert.match((await act()).message, /has not entered a loop/);
  await stack.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("openDispatch: a reload whose loops do not read adopts nothing of it, routing.loop neither", async () => {
  const dir = await Deno.makeTempDir();
  const { stack, events, warnings, config } = await open(LOOPS, dir);
  const act = () =>
    stack.dispatcher.act({ verb: "advance", ref: "github:octo/repo#1", outcome: "done" }, {
      via: "poll",
    });
  // the same edit declares a loop that does not read and routes every item to it
  const broken = structuredClone(config);
  (broken.loops as Record<string, unknown>).ghost = { start: "nowhere", nodes: {} };
  broken.webhooks.ghWebhook.routing.loop = "ghost";
  await stack.reconfigure(broken);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /the new loops were refused, keeping the previous ones/);
  assert.match(warnings[0], /whole previous config/);
  // still `quick` (had routing.loop: ghost been adopted: "not declared", loop.unknown)
  assert.match((await act()).message, /has not entered a loop/);
  assert.deepEqual(events.ofType("loop.unknown"), []);
  await stack.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("openDispatch refuses loops that do not read, at file:line:col", async () => {
  const dir = await Deno.makeTempDir();
  const text = LOOPS.replace("next: { done: finished }", "next: { done: nowhere }");
  await assert.rejects(
    () => open(text, dir),
    (err: unknown) => {
      assert.ok(err instanceof ProblemsError);
      assert.match(err.message, /c\.yaml:\d+:\d+: .*nowhere/);
      return true;
    },
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("openDispatch keeps positions under <state.root>/loops; a corrupt one is loop.position_corrupt", async () => {
  const dir = await Deno.makeTempDir();
  const loops = join(dir, "state", "loops");
  await Deno.mkdir(loops, { recursive: true });
  await Deno.writeTextFile(join(loops, "github-octo-repo-1.json"), "{ not json");
  const { stack, events } = await open(LOOPS, dir);
  const r = await stack.dispatcher.act(
    { verb: "advance", ref: "github:octo/repo#1", outcome: "done" },
    { via: "poll" },
  );
  assert.match(r.message, /has not entered a loop/);
  const [corrupt] = events.ofType("loop.position_corrupt");
  assert.equal(corrupt.work_item, "github:octo/repo#1");
  assert.match(String(corrupt.kept_as), /github-octo-repo-1\.json\.corrupt-/);
  await stack.close();
  await Deno.remove(dir, { recursive: true });
});
