/**
 * The last gate before a harness: every prompt a runner is handed — the rendered event and
 * spawn prompts, a custom template's text, a prompt a `session_spawn` hook rewrote, a batch of
 * deliveries joined — passes through {@linkcode promptSafe} here, at the seam where the
 * dispatcher hands it to the runner (spawn, respawn, delivery). The excerpt of GitHub text was
 * made safe already; this pass covers everything else, so no control character, paste marker or
 * key sequence reaches a harness's terminal or argv whatever its source.
 *
 * @module
 */
import { promptSafe } from "../terminal.ts";
import type { DispatchRunner } from "./seams.ts";

/** `runner` with every prompt made terminal-safe before it gets it (all else passed through). */
export function terminalSafe(runner: DispatchRunner): DispatchRunner {
  return {
    kind: runner.kind,
    spawn: (s, prompt, opts) => runner.spawn(s, promptSafe(prompt), opts),
    deliver: (s, prompt, opts) => runner.deliver(s, promptSafe(prompt), opts),
    close: (s) => runner.close(s),
    ...(runner.dispose ? { dispose: () => runner.dispose!() } : {}),
    ...(runner.attachCommand ? { attachCommand: (slug) => runner.attachCommand!(slug) } : {}),
    ...(runner.logPath ? { logPath: (slug) => runner.logPath!(slug) } : {}),
  };
}
