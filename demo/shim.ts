/**
 * The demo agent's way in: a folder (first on the daemon's `PATH`) holding `claude`, a shim that
 * runs `the-loop demo agent "$@"`, and `the-loop`, the launcher the daemon writes for its
 * sessions (`writeLauncher`, `dispatch/agent_env.ts`: a symlink to a compiled binary, or the
 * `deno run … main.ts` script of a source checkout), so the shim runs this very the-loop either
 * way. The daemon finds `claude` on its `PATH` as it would Claude Code, and drives it through the
 * same adapter, runners and workspaces.
 *
 * ```sh
 * #!/bin/sh
 * # the demo agent, named as the harness the-loop runs (written by `the-loop demo`)
 * exec '/tmp/the-loop-demo-x/agent-bin/the-loop' demo agent "$@"
 * ```
 *
 * @module
 */
import { join } from "node:path";
import { shellQuote, writeLauncher } from "../dispatch/mod.ts";
import { writeFileAtomic } from "../state/atomic.ts";

/** The harness the shim stands in for. */
export const SHIM_HARNESS = "claude";

/** The shim's text, running `launcher`. */
export function shimScript(launcher: string): string {
  return [
    "#!/bin/sh",
    "# the demo agent, named as the harness the-loop runs (written by `the-loop demo`)",
    `exec ${shellQuote(launcher)} demo agent "$@"`,
    "",
  ].join("\n");
}

/** Writes `<dir>/the-loop` and `<dir>/claude`; returns the launcher's path. */
export async function writeAgentShim(dir: string): Promise<string> {
  const launcher = await writeLauncher({ binDir: dir });
  await writeFileAtomic(join(dir, SHIM_HARNESS), shimScript(launcher), { mode: 0o755 });
  return launcher;
}
