/**
 * Bench: cold start of `the-loop hooks --format json` against a config declaring the five
 * examples of `hooks-examples/` (the command reads the declaration; it imports, contacts and
 * runs nothing). A failing run (e.g. the command is not registered yet) is reported as
 * `{error}` instead of failing the whole bench.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { measureCli } from "./_cli.ts";

const EXAMPLES = fileURLToPath(new URL("../hooks-examples/", import.meta.url));

/** The declaration the bench lists: one of each kind, from `hooks-examples/`. */
export function examplesConfig(): string {
  return `hooks:
  - name: roster
    path: ${EXAMPLES}roster_policy.ts
    required: true
    with: {roster: /etc/the-loop/roster.txt}
    permissions: {read: [/etc/the-loop/roster.txt]}
  - name: house-rules
    path: ${EXAMPLES}prompt_prefixer.ts
    with: {prefix: "House rules: run the tests before you push."}
  - name: quiet
    path: ${EXAMPLES}quiet_announcer.ts
  - name: compliance
    url: http://127.0.0.1:8787/
    tokenEnv: HOOKS_TOKEN
  - name: audit
    command: [python3, ${EXAMPLES}audit_command.py, --stoppers, alice]
    env: [AUDIT_LOG]
`;
}

/** Runs the bench. */
export async function run(): Promise<Record<string, unknown>> {
  const dir = await Deno.makeTempDir({ prefix: "the-loop-bench-" });
  try {
    await Deno.mkdir(`${dir}/.the-loop`);
    await Deno.writeTextFile(`${dir}/.the-loop/cli-config.yaml`, examplesConfig());
    try {
      return { hooks_json: await measureCli(["hooks", "--format", "json"], dir) };
    } catch (err) {
      return { hooks_json: { error: (err as Error).message.slice(0, 500) } };
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
