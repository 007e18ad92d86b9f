/**
 * `the-loop sessions attach <ref> [--read-only] [--print]`: reaches the tmux session a work
 * item's harness runs in. On a terminal it runs `tmux attach -t loop-<slug>` in the foreground;
 * otherwise (or with `--print`) it prints that command. A closed session's retained pane is
 * attached read-only (`-r`): a finished work item takes no input. A headless session (the process
 * runner) has no pane: exit 1, pointing at the event log.
 *
 * @module
 */
import type { Command } from "commander";
import { type CliContext, println } from "../context.ts";
import { openSessions, refArg } from "./_open.ts";

interface AttachFlags {
  readOnly?: boolean;
  print?: boolean;
}

const quote = (word: string) =>
  /^[\w.:@%+=,/-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;

/** Adds `attach` to the `sessions` group. */
export function register(group: Command, ctx: CliContext): void {
  group.command("attach")
    .description("attach to the tmux session a work item's harness runs in")
    .argument("<ref>", "the work item: github:OWNER/REPO#N or github:HOST/OWNER/REPO#N")
    .option("--read-only", "attach read-only (always so for a closed session)")
    .option("--print", "print the tmux command instead of running it")
    .action(async (ref: string, flags: AttachFlags) => {
      const item = refArg(ref);
      const { store } = await openSessions(ctx, "sessions");
      const record = await store.get(item.ref);
      if (!record) throw new Error(`no session for ${item.ref} (see: the-loop sessions list)`);
      if (!record.tmuxTarget) {
        throw new Error(
          `the session of ${item.ref} runs headless (no tmux session to attach to); ` +
            `follow it with: the-loop events --work-item '${item.ref}' --follow`,
        );
      }
      const readOnly = flags.readOnly === true || record.status === "closed";
      // the daemon's private tmux server, when it runs one (`$THE_LOOP_TMUX_SOCKET`)
      const socket = ctx.env("THE_LOOP_TMUX_SOCKET");
      const args = [
        ...(socket ? ["-L", socket] : []),
        "attach",
        ...(readOnly ? ["-r"] : []),
        "-t",
        record.tmuxTarget,
      ];
      // the one place a command looks at the real terminal: attaching needs one on both ends
      const terminal = Deno.stdout.isTerminal() && Deno.stdin.isTerminal();
      if (flags.print || !terminal) {
        println(ctx, ["tmux", ...args].map(quote).join(" "));
        return;
      }
      const status = await new Deno.Command("tmux", {
        args,
        stdin: "inherit",
        stdout: "inherit",
        stderr: "inherit",
      }).spawn().status;
      if (!status.success) {
        throw new Error(`tmux ${args.join(" ")} exited ${status.code}: is the tmux session gone?`);
      }
    });
}
