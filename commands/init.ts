/**
 * `the-loop init [--force]`: writes the commented starting config where the next command will
 * read it — the `--config` path, else `$THE_LOOP_CLI_CONFIG`, else `./.the-loop/cli-config.yaml`
 * — with the schema beside it so editors complete and check it offline. Both are embedded, so a
 * compiled binary needs no files. When the lookup already finds a config for this folder (in a
 * parent folder or `~/.the-loop`), it says that the new file takes its place here.
 *
 * @module
 */
import type { Command } from "commander";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "../state/atomic.ts";
import { type CliContext, println } from "./context.ts";
import { exists } from "../state/files.ts";

/** Registers `init`. */
export function register(program: Command, ctx: CliContext): void {
  program.command("init")
    .description("write a commented starting config (and its schema beside it)")
    .option("--force", "overwrite an existing config file")
    .action(async (opts: { force?: boolean }) => {
      const config = await import("../config/mod.ts");
      const named = config.explicitConfigPath({
        flag: ctx.configFlag(),
        env: ctx.env,
        cwd: ctx.cwd,
      });
      const target = named?.path ??
        join(ctx.cwd, config.CONFIG_DIR_NAME, config.CONFIG_FILE_NAME);
      if (!opts.force && (await exists(target))) {
        throw new Error(`${target} already exists; use --force to overwrite it`);
      }
      // what the lookup reads here today (a failed lookup only loses the note below)
      const before = named
        ? undefined
        : await config.resolveConfigPath({ env: ctx.env, cwd: ctx.cwd }).catch(() => undefined);
      const schemaPath = join(dirname(target), config.SCHEMA_FILE_NAME);
      await writeFileAtomic(target, config.CONFIG_TEMPLATE);
      await writeFileAtomic(schemaPath, JSON.stringify(config.CONFIG_SCHEMA, null, 2) + "\n");
      const from = named ? ` (named by ${config.SOURCE_LABELS[named.source]})` : "";
      println(ctx, `wrote ${target}${from}`);
      println(ctx, `wrote ${schemaPath} (for editor completion)`);
      if (before?.path && before.path !== target) {
        const label = config.sourceLabel({ ...before, cwd: ctx.cwd });
        println(
          ctx,
          `note: in ${ctx.cwd} and the folders under it, this file is read instead of ` +
            `${before.path} (${label})`,
        );
      }
      println(ctx, "next: edit it, then run `the-loop config validate`");
    });
}
