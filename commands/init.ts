/**
 * `the-loop init [--force]`: writes the commented starting config to
 * `./.the-loop/cli-config.yaml` (or the `--config` path), with the schema beside it so editors
 * complete and check it offline. Both are embedded, so a compiled binary needs no files.
 *
 * @module
 */
import type { Command } from "commander";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "../state/atomic.ts";
import { type CliContext, println } from "./_context.ts";
import { exists } from "../state/files.ts";

/** Registers `init`. */
export function register(program: Command, ctx: CliContext): void {
  program.command("init")
    .description("write a commented starting config (and its schema beside it)")
    .option("--force", "overwrite an existing config file")
    .action(async (opts: { force?: boolean }) => {
      const { absolutePath, CONFIG_FILE_NAME, CONFIG_SCHEMA, CONFIG_TEMPLATE, SCHEMA_FILE_NAME } =
        await import("../config/mod.ts");
      const flag = ctx.configFlag();
      const target = flag
        ? absolutePath(flag, ctx.cwd, ctx.env)
        : join(ctx.cwd, ".the-loop", CONFIG_FILE_NAME);
      if (!opts.force && (await exists(target))) {
        throw new Error(`${target} already exists; use --force to overwrite it`);
      }
      const schemaPath = join(dirname(target), SCHEMA_FILE_NAME);
      await writeFileAtomic(target, CONFIG_TEMPLATE);
      await writeFileAtomic(schemaPath, JSON.stringify(CONFIG_SCHEMA, null, 2) + "\n");
      println(ctx, `wrote ${target}`);
      println(ctx, `wrote ${schemaPath} (for editor completion)`);
      println(ctx, "next: edit it, then run `the-loop config validate`");
    });
}
