/**
 * The module examples of `hooks-examples/` (roster_policy, prompt_prefixer, quiet_announcer),
 * each declared by path in a real config and run through the real engine and runner in its
 * sandboxed worker.
 *
 * @module
 */
import assert from "node:assert/strict";
import { makeContext } from "../lifecycle/sdk/mod.ts";
import { parse as parseYaml } from "yaml";
import { ProblemsError } from "../errors.ts";
import { parseDeclaration } from "../lifecycle/mod.ts";
import { example, ran, withHooks } from "./_test_utils.ts";

/** Workers and esbuild outlive a single test by design. */
const relaxed = { sanitizeOps: false, sanitizeResources: false };

const start = (actor: string) =>
  makeContext("work_item_start", {
    work_item: "github:acme/app#42" as never,
    loop: "pdlc",
    command: "start",
    actor,
    harness: "claude",
    instance: "",
  });

const spawnFacts = {
  work_item: "github:acme/app#42" as never,
  endpoint: "github:acme/app#42" as never,
  harness: "claude",
  cwd: "/tmp/checkout",
  model: "",
  effort: "",
  harness_args: [],
  respawn: false,
};

const rosterYaml = (grant: boolean) => () =>
  `  - name: roster
    path: ${example("roster_policy.ts")}
    required: true
    with: {roster: ./roster.txt}
${grant ? "    permissions: {read: [./roster.txt]}\n" : ""}`;

const ROSTER = "# the delivery roster\nalice\n\nBob  # GitHub logins are case-insensitive\n";

Deno.test("roster_policy passes rostered actors and refuses others by name", relaxed, async () => {
  await withHooks(
    rosterYaml(true),
    { files: { "roster.txt": ROSTER } },
    async ({ runner, sink }) => {
      for (const actor of ["alice", "bob"]) {
        const ctx = await runner.run("work_item_start", start(actor));
        assert.equal(ctx.proceed, true, actor);
      }
      const refused = await runner.run("work_item_start", start("mallory"));
      assert.equal(refused.proceed, false);
      assert.match(refused.reason, /@mallory is not on the delivery roster/);
      assert.deepEqual(ran(sink), [
        ["roster", "passed", []],
        ["roster", "passed", []],
        ["roster", "refused", ["proceed", "reason"]],
      ]);
      const [event] = sink.ofType("hooks.refused");
      assert.equal(event.hook, "roster");
      assert.equal(event.work_item, "github:acme/app#42");
      assert.match(String(event.reason), /mallory/);
    },
  );
});

Deno.test(
  "roster_policy without its read grant is denied by the sandbox; required, it refuses",
  relaxed,
  async () => {
    await withHooks(
      rosterYaml(false),
      { files: { "roster.txt": ROSTER } },
      async ({ runner, sink }) => {
        const ctx = await runner.run("work_item_start", start("alice"));
        assert.equal(
          ctx.proceed,
          false,
          "a rostered actor is refused: the roster could not be read",
        );
        assert.match(
          ctx.reason,
          /^required hook "roster" failed: .*cannot read the roster \S+roster\.txt \(NotCapable\); grant it/,
        );
        assert.deepEqual(ran(sink), [["roster", "failed", ["proceed", "reason"]]]);
        const [failed] = sink.ofType("hooks.failed");
        assert.equal(failed.required, true);
        assert.match(String(failed.error), /roster\.txt/);
      },
    );
  },
);

Deno.test("roster_policy refuses to load without with.roster", relaxed, async () => {
  const yaml = () =>
    `  - name: roster
    path: ${example("roster_policy.ts")}
    permissions: {read: [./roster.txt]}
`;
  await assert.rejects(
    withHooks(yaml, {}, () => Promise.resolve()),
    (err: unknown) =>
      err instanceof ProblemsError && /with\.roster must name the roster file/.test(err.message),
  );
});

Deno.test("prompt_prefixer puts the house rules before the prompt, once", relaxed, async () => {
  const yaml = () =>
    `  - name: house-rules
    path: ${example("prompt_prefixer.ts")}
    with:
      prefix: |
        House rules: run the tests before you push.
`;
  await withHooks(yaml, {}, async ({ runner, sink }) => {
    const ctx = makeContext("session_spawn", { ...spawnFacts, loop: "pdlc", prompt: "Fix #42." });
    await runner.run("session_spawn", ctx);
    assert.equal(ctx.prompt, "House rules: run the tests before you push.\n\nFix #42.");
    assert.equal(ctx.proceed, true);
    await runner.run("session_spawn", ctx); // already prefixed: a pass
    assert.equal(ctx.prompt, "House rules: run the tests before you push.\n\nFix #42.");
    assert.deepEqual(ran(sink), [["house-rules", "decided", ["prompt"]], [
      "house-rules",
      "passed",
      [],
    ]]);
    assert.deepEqual(sink.ofType("hooks.decided").map((r) => r.changed), [["prompt"]]);
  });
});

Deno.test(
  "prompt_prefixer without a prefix fails the strict load, naming the hook",
  relaxed,
  async () => {
    const yaml = () => `  - name: house-rules\n    path: ${example("prompt_prefixer.ts")}\n`;
    await assert.rejects(
      withHooks(yaml, {}, () => Promise.resolve()),
      (err: unknown) =>
        err instanceof ProblemsError && /house-rules/.test(err.message) &&
        /with\.prefix must be the text/.test(err.message),
    );
  },
);

Deno.test(
  "quiet_announcer turns announce off for the listed repositories only",
  relaxed,
  async () => {
    const yaml = () =>
      `  - name: quiet
    path: ${example("quiet_announcer.ts")}
    with: {repos: [Acme/App]}
`;
    await withHooks(yaml, {}, async ({ runner, sink }) => {
      const spawned = (ref: string) =>
        makeContext("session_spawned", {
          ...spawnFacts,
          work_item: ref as never,
          endpoint: ref as never,
          harness_session_id: "sess-1",
          tmux_target: "loop-app-42",
        });
      const quiet = await runner.run("session_spawned", spawned("github:acme/app#42"));
      const loud = await runner.run("session_spawned", spawned("github:acme/infra#7"));
      assert.equal(quiet.announce, false);
      assert.equal(loud.announce, true);
      assert.deepEqual(ran(sink), [["quiet", "decided", ["announce"]], ["quiet", "passed", []]]);
      assert.deepEqual(
        sink.ofType("hooks.ran").map((r) => [r.kind, r.work_item]),
        [["module", "github:acme/app#42"], ["module", "github:acme/infra#7"]],
      );
    });
  },
);

Deno.test("quiet_announcer with onlyRespawns keeps first announcements", relaxed, async () => {
  const yaml = () =>
    `  - name: quiet
    path: ${example("quiet_announcer.ts")}
    with: {onlyRespawns: true}
`;
  await withHooks(yaml, {}, async ({ runner, sink }) => {
    const spawned = (respawn: boolean) =>
      makeContext("session_spawned", {
        ...spawnFacts,
        respawn,
        harness_session_id: "sess-1",
        tmux_target: "loop-app-42",
      });
    assert.equal((await runner.run("session_spawned", spawned(false))).announce, true);
    assert.equal((await runner.run("session_spawned", spawned(true))).announce, false);
    assert.deepEqual(ran(sink), [["quiet", "passed", []], ["quiet", "decided", ["announce"]]]);
  });
});

Deno.test("every declaration in hooks-examples/README.md is a valid hooks: list", async () => {
  const readme = await Deno.readTextFile(example("README.md"));
  const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.equal(blocks.length, 5);
  const names = blocks.flatMap((block) => {
    const decl = parseDeclaration(parseYaml(block).hooks, { baseDir: "/etc/the-loop", home: "/" });
    return decl.entries.map((e) => `${e.name}:${e.kind}`);
  });
  assert.deepEqual(names, [
    "roster:module",
    "house-rules:module",
    "quiet:module",
    "compliance:remote",
    "audit:command",
  ]);
});
