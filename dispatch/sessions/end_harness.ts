/**
 * Ending a stopped session's harness from a process that does not host it (a `sessions stop`
 * verb, beside a running daemon). A tmux-hosted harness is reached through its tmux session:
 * {@linkcode TmuxRunner.close} ends the harness (`killHarnessOnClose`, after
 * `harnessKillGraceSeconds`) and keeps or kills the session (`keepSessionOnClose`), exactly as
 * the daemon does at closure. A headless harness (the process runner) runs only while a prompt
 * is being answered, inside the daemon; nothing else holds it, so there is nothing to end here.
 *
 * @module
 */
import type { RoutingConfig } from "../../config/types.ts";
import type { SessionRecord } from "../../state/registry.ts";
import { parseWorkItem, slugOf } from "../../state/work_item.ts";
import { adapterFor } from "../harness/mod.ts";
import { TmuxRunner, tmuxSessionName } from "../runners/mod.ts";
import type { HarnessName, HostedSession } from "../seams.ts";

/** Options of {@linkcode harnessEnder}. */
export interface HarnessEnderOptions {
  /** `routing.tmux`. */
  tmux: RoutingConfig["tmux"];
  /** `tmux -L <socket>` (tests); the user's default server when absent. */
  socket?: string;
  /** Best-effort problems (an old tmux rejecting `remain-on-exit`). */
  warn?: (message: string) => void;
}

/** The session as a runner hosts it. */
export function hostedOf(record: SessionRecord): HostedSession {
  const item = parseWorkItem(record.workItem.ref);
  if (!item) throw new RangeError(`"${record.workItem.ref}" is not a work item ref`);
  return {
    ref: item.ref,
    slug: slugOf(item),
    harness: record.harness as HarnessName,
    harnessSessionId: record.harnessSessionId,
    cwd: record.cwd,
    tmuxTarget: record.tmuxTarget,
  };
}

/** The `endHarness` of {@linkcode SessionControl} for a process that does not host sessions. */
export function harnessEnder(o: HarnessEnderOptions): (s: SessionRecord) => Promise<void> {
  const runner = new TmuxRunner({
    adapter: adapterFor,
    extraArgs: () => [],
    tmux: o.tmux,
    socket: o.socket,
    warn: o.warn,
  });
  return async (record) => {
    if (!record.tmuxTarget) return; // headless: nothing runs between prompts
    const hosted = hostedOf(record);
    const own = tmuxSessionName(hosted.slug);
    if (record.tmuxTarget !== own) {
      throw new Error(
        `its tmux session ${record.tmuxTarget} was not started by the-loop (that would be ${own}); ` +
          `end it by hand: tmux kill-session -t ${record.tmuxTarget}`,
      );
    }
    await runner.close(hosted);
  };
}
