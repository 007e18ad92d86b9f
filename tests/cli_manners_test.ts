/**
 * Terminal manners: no colour where it is not wanted, shell completions generated from the
 * program, `--help` that names every flag.
 *
 * @module
 */
import assert from "node:assert/strict";
import { cli } from "./_test_utils.ts";
import { buildProgram } from "../commands/mod.ts";
import { silentContext } from "../commands/context.ts";

// deno-lint-ignore no-control-regex
const ESC = /\x1b/;

Deno.test("piped output has no colour, even with FORCE_COLOR and NO_COLOR empty, or --no-color", async () => {
  const env = { NO_COLOR: "", FORCE_COLOR: "3", CLICOLOR_FORCE: "1" };
  for (
    const args of [
      ["evnts"], // an error (stderr)
      ["hooks"],
      ["hooks", "--help"],
      ["--no-color", "evnts"],
      ["--no-color", "hooks"],
    ]
  ) {
    const r = await cli(args, { env });
    assert.doesNotMatch(r.stdout + r.stderr, ESC, args.join(" "));
    assert.ok(r.stdout + r.stderr, args.join(" "));
  }
});

Deno.test("completions: bash, zsh and fish scripts name every command and --format", async () => {
  const program = buildProgram(silentContext());
  const names: string[] = [];
  const walk = (cmd: typeof program) => {
    for (const sub of cmd.commands) {
      if ((sub as unknown as { _hidden?: boolean })._hidden) continue; // `demo agent`
      names.push(sub.name());
      walk(sub);
    }
  };
  walk(program);
  for (const shell of ["bash", "zsh", "fish"]) {
    const r = await cli(["completions", shell]);
    assert.equal(r.code, 0, r.stderr);
    for (const name of [...names, "--format", "--no-color", "--config"]) {
      assert.ok(
        r.stdout.includes(name) || (shell === "fish" && r.stdout.includes(`-l ${name.slice(2)}`)),
        `${shell}: ${name}`,
      );
    }
    const choices = shell === "zsh" ? "'table' 'json' 'jsonl'" : "table json jsonl";
    assert.ok(r.stdout.includes(choices), `${shell}: the events --format choices`);
  }
  const bash = await cli(["completions", "bash"]);
  const file = Deno.makeTempFileSync({ suffix: ".bash" });
  Deno.writeTextFileSync(file, bash.stdout);
  const check = await new Deno.Command("bash", { args: ["-n", file] }).output();
  assert.equal(check.code, 0, new TextDecoder().decode(check.stderr));
  // and it completes: `the-loop hooks test x --format <TAB>`
  const complete = await new Deno.Command("bash", {
    args: [
      "-c",
      `source ${file}; COMP_WORDS=(the-loop hooks test x --format ""); COMP_CWORD=5; ` +
      `_the_loop; echo "\${COMPREPLY[*]}"`,
    ],
  }).output();
  assert.equal(new TextDecoder().decode(complete.stdout), "text json\n");

  const bad = await cli(["completions", "ksh"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /Allowed choices are bash, zsh, fish/);
});
