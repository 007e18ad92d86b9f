/**
 * The hostile hooks of `escapes_test.ts` through the real CLI: `the-loop hooks test --format
 * json` must survive a hook that signals its process, and print valid JSON only — nothing the
 * hook printed — in a worker and under `isolation: process` (whose stdout is the protocol).
 *
 * @module
 */
import assert from "node:assert/strict";
import { baseEnv, taskArgs } from "./_test_utils.ts";
import { START_CONTEXT, tree } from "./_test_utils.ts";
import { fixture } from "../lifecycle/executors/module/_test_utils.ts";

const REFUSED = /is not available to hooks/;

function project(): string {
  const hook = (name: string, file: string, extra = "") =>
    `  - name: ${name}\n    path: hooks/${file}\n    timeoutSeconds: 20\n${extra}`;
  const process = "    isolation: process\n";
  return tree({
    "cli-config.yaml": "eventLog: { path: events.jsonl }\nhooks:\n" +
      hook("killer", "kills_host.ts") +
      hook("killer-p", "kills_host.ts", process) +
      hook("printer", "prints_stdout.ts") +
      hook("printer-p", "prints_stdout.ts", process),
    "hooks/kills_host.ts": Deno.readTextFileSync(fixture("kills_host.ts")),
    "hooks/prints_stdout.ts": Deno.readTextFileSync(fixture("prints_stdout.ts")),
  });
}

/**
 * `the-loop hooks test NAME --point work_item_start --context - --format json`, the context
 * built from the CLI's own pid; SIGKILLed (a SIGSTOPped process ignores anything gentler) if
 * it has not ended within 90 s.
 */
async function hooksTest(cwd: string, name: string, context: (pid: number) => unknown) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      ...taskArgs(),
      ...["hooks", "test", name, "--point", "work_item_start", "--context", "-"],
      ...["--format", "json"],
    ],
    cwd,
    env: { ...baseEnv(cwd), THE_LOOP_CLI_CONFIG: "cli-config.yaml" },
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }, 90_000);
  try {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(JSON.stringify(context(child.pid))));
    await writer.close();
    const out = await child.output();
    const dec = new TextDecoder();
    return { ...out, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("1 (CLI): hooks test survives a hook that signals the-loop by any spelling", async () => {
  const cwd = project();
  for (const name of ["killer", "killer-p"]) {
    const r = await hooksTest(cwd, name, (pid) => ({ ...START_CONTEXT, actor: String(pid) }));
    assert.equal(r.signal, null, `${name}: the-loop was killed (${r.signal}): ${r.stderr}`);
    assert.equal(r.code, 0, `${name}: ${r.stderr}`);
    const out = JSON.parse(r.stdout);
    assert.equal(out.decisions.proceed, true, name);
    const attempts: Record<string, string> = JSON.parse(out.decisions.reason);
    assert.ok(Object.keys(attempts).length >= 11, name);
    for (const [attack, result] of Object.entries(attempts)) {
      assert.ok(
        REFUSED.test(result) || /^no (_kill anywhere|getter|internals)$/.test(result),
        `${name} ${attack}: ${result}`,
      );
    }
  }
});

Deno.test("2 (CLI): hooks test --format json prints valid JSON only, whatever the hook prints", async () => {
  const cwd = project();
  for (const name of ["printer", "printer-p"]) {
    const r = await hooksTest(cwd, name, () => START_CONTEXT);
    assert.equal(r.code, 0, `${name}: ${r.stderr}`);
    const out = JSON.parse(r.stdout); // throws on a forged line in front of the result
    assert.equal(out.ok, true, name);
    assert.doesNotMatch(r.stdout.replace(out.decisions.reason, ""), /by-the-hook/, name);
    assert.match(r.stderr, /\{"ok":true,"forged":"by-the-hook"\}: 1/, `${name}: console.count`);
    assert.match(r.stderr, /"by-the-hook"\} end: /, `${name}: console.timeEnd`);
    // under isolation: process the child's stdout carried its protocol only
    assert.doesNotMatch(r.stderr, new RegExp(`hook "${name}": `), name);
  }
});
