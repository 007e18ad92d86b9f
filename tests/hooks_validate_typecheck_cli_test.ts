/**
 * `the-loop hooks validate` type-checks module hooks against the SDK with `deno check`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { baseEnv, cli, snippetOf, taskArgs, tree } from "./_test_utils.ts";

const TYPO = `import { LifecycleHooks, type SessionSpawn } from "@the-loop/hooks";
export default class Typo extends LifecycleHooks {
  override session_spawn(ctx: SessionSpawn) {
    const n: number = ctx.prompt;
    return { prompt: ctx.promt + n };
  }
}
`;

const CONFIG = "hooks:\n  - name: typo\n    path: hooks/typo.ts\n";

Deno.test("hooks validate: a type error in a module hook is reported at file:line:col", async () => {
  const cwd = tree({ "cli-config.yaml": CONFIG, "hooks/typo.ts": TYPO });
  const file = join(cwd, "hooks/typo.ts");
  const env = { THE_LOOP_CLI_CONFIG: "cli-config.yaml" };
  const r = await cli(["hooks", "validate"], { cwd, env });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /^FAIL {2}typo \(module\): does not type-check: 2 type errors, below$/m);
  assert.match(r.stdout, /^FAIL {2}type check: 2 errors in 1 module hook file/m);
  assert.ok(
    r.stderr.includes(
      `${file}:4:11: hook "typo": type error TS2322: Type 'string' is not assignable to type 'number'.`,
    ),
    r.stderr,
  );
  assert.ok(r.stderr.includes(`${file}:5:26: hook "typo": type error TS2551: Property 'promt'`));

  const json = await cli(["hooks", "validate", "--format", "json"], { cwd, env });
  assert.equal(json.code, 1);
  const out = JSON.parse(json.stdout);
  assert.deepEqual(
    out.problems.map((p: { file: string; line: number; col: number }) => [p.file, p.line, p.col]),
    [[file, 4, 11], [file, 5, 26]],
  );
  assert.equal(out.hooks[0].ok, false);
  assert.deepEqual([out.typecheck.ran, out.typecheck.errors], [true, 2]);
});

Deno.test("hooks validate --no-typecheck: the type check is skipped", async () => {
  const cwd = tree({ "cli-config.yaml": CONFIG, "hooks/typo.ts": TYPO });
  const r = await cli(["hooks", "validate", "--no-typecheck"], {
    cwd,
    env: { THE_LOOP_CLI_CONFIG: "cli-config.yaml" },
  });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /type check/);
});

Deno.test("hooks validate: a fresh 'hooks init' hook type-checks; so does 'hooks sdk' output", async () => {
  const cwd = tree(); // no config yet: init prints a whole hooks: block to paste
  const init = await cli(["hooks", "init", "starter"], { cwd });
  assert.equal(init.code, 0, init.stderr);
  await Deno.writeTextFile(join(cwd, ".the-loop/cli-config.yaml"), snippetOf(init.stdout));
  const r = await cli(["hooks", "validate"], { cwd });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^ok {4}type check: 1 module hook file against @the-loop\/hooks/m);

  const sdk = await cli(["hooks", "sdk", "--dir", "sdk-out"], { cwd });
  assert.equal(sdk.code, 0, sdk.stderr);
  const dir = join(cwd, "sdk-out");
  const check = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--quiet", "--no-lock", "--config", join(dir, "deno.json"), dir],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(check.success, new TextDecoder().decode(check.stderr));
});

Deno.test("hooks validate: without deno on PATH, a note says how to get it (not a failure)", async () => {
  const cwd = tree({
    "cli-config.yaml": CONFIG,
    "hooks/typo.ts": TYPO,
    "empty-bin/.keep": "",
  });
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...taskArgs(), "hooks", "validate"],
    cwd,
    env: {
      ...baseEnv(cwd),
      PATH: join(cwd, "empty-bin"),
      THE_LOOP_CLI_CONFIG: "cli-config.yaml",
    },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.match(
    stdout,
    /^note {2}module hooks were not type-checked: no deno on PATH \(install it with 'npm install -g deno' or see https:\/\/deno\.land\)/m,
  );
});
