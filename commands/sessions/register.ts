/**
 * `the-loop sessions register <ref> --harness claude|cursor --session-id ID [--cwd DIR]
 * [--tmux TARGET] [--url URL] [--force]`: links a work item to a harness session
 * printing `registered <ref> -> <harness>:<id>`. A live session of the same item is a usage
 * error (exit 2) unless `--force` replaces it; a closed one may be registered again.
 *
 * @module
 */
import { type Command, Option } from "commander";
import { HARNESS_KEYS, type HarnessKey } from "../../config/types.ts";
import { UsageError } from "../../errors.ts";
import { webUrlOf } from "../../state/work_item.ts";
import { pathFlag } from "../_daemon.ts";
import { type CliContext, println } from "../context.ts";
import { openSessions, refArg } from "./_open.ts";

interface RegisterFlags {
  harness: HarnessKey;
  sessionId: string;
  cwd?: string;
  tmux?: string;
  url?: string;
  force?: boolean;
}

/** Adds `register` to the `sessions` group. */
export function register(group: Command, ctx: CliContext): void {
  group.command("register")
    .description("link a work item to a harness session (one live session per work item)")
    .argument("<ref>", "the work item: github:OWNER/REPO#N or github:HOST/OWNER/REPO#N")
    .addOption(
      new Option("--harness <harness>", "the harness").choices([...HARNESS_KEYS])
        .makeOptionMandatory(),
    )
    .requiredOption("--session-id <id>", "the harness's conversation id")
    .option("--cwd <dir>", "the session's working directory (default: this one)")
    .option("--tmux <target>", "the tmux session it runs in (default: none, headless)")
    .option("--url <url>", "the work item's URL (default: derived from the ref)")
    .option("--force", "replace a live session of the same work item")
    .action(async (ref: string, flags: RegisterFlags) => {
      const item = refArg(ref);
      if (!flags.sessionId.trim()) throw new UsageError("--session-id: must not be empty");
      const { store } = await openSessions(ctx, "sessions");
      const cwd = pathFlag(flags.cwd, ctx.cwd, ctx.cwd);
      try {
        const record = await store.register({
          item,
          harness: flags.harness,
          harnessSessionId: flags.sessionId.trim(),
          cwd,
          tmuxTarget: flags.tmux ?? "",
          url: flags.url ?? webUrlOf(item),
          force: flags.force === true,
        });
        println(ctx, `registered ${item.ref} -> ${record.harness}:${record.harnessSessionId}`);
      } catch (error) {
        // the command line asked for what the registry refuses: fix it with --force (exit 2)
        const { SessionExistsError } = await import("../../dispatch/mod.ts");
        if (error instanceof SessionExistsError) throw new UsageError(error.message);
        throw error;
      }
    });
}
