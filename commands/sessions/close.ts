/**
 * `the-loop sessions close <ref>`: closes the work item's live session in the registry:
 * its file says `closed` and is kept, `session.closed` is logged. It does not end the
 * harness or its tmux session: that is `routing.tmux.keepSessionOnClose`'s default (the pane
 * stays to be read back) and what `sessions stop` is for. No live session: exit 1.
 *
 * @module
 */
import type { Command } from "commander";
import { type CliContext, println } from "../context.ts";
import { openSessions, refArg } from "./_open.ts";

/** Adds `close` to the `sessions` group. */
export function register(group: Command, ctx: CliContext): void {
  group.command("close")
    .description("mark a work item's session closed (the harness is left alone: see stop)")
    .argument("<ref>", "the work item: github:OWNER/REPO#N or github:HOST/OWNER/REPO#N")
    .action(async (ref: string) => {
      const item = refArg(ref);
      const { store } = await openSessions(ctx, "sessions");
      const closed = await store.close(item.ref, { reason: "cli" });
      if (!closed) throw new Error(`no active session for ${item.ref}`);
      println(ctx, `closed ${item.ref} (${closed.harness}:${closed.harnessSessionId})`);
    });
}
