/**
 * `the-loop hooks sdk [--dir DIR]`: writes the hook-author SDK beside your hooks so editors
 * resolve `@the-loop/hooks` and remote hook servers run with plain `deno run`.
 *
 * @module
 */
import type { Command } from "commander";
import { join, resolve } from "node:path";
import { loadCliConfig } from "../_config.ts";
import { type CliContext, println } from "../context.ts";
import { SDK_DIR_NAME, writeSdk } from "./_sdk_files.ts";
import { defaultHooksDir } from "./_paths.ts";

/** Registers `hooks sdk`. */
export function register(hooks: Command, ctx: CliContext): void {
  hooks.command("sdk")
    .description(
      "write the hook SDK (@the-loop/hooks) and a deno.json mapping it beside your hooks",
    )
    .option("--dir <dir>", "where (default: hooks/ beside the config file)")
    .action(async (flags: { dir?: string }) => {
      const dir = flags.dir
        ? resolve(ctx.cwd, flags.dir)
        : defaultHooksDir(await loadCliConfig(ctx), ctx.cwd);
      const { written, kept } = await writeSdk(dir);
      println(ctx, `wrote ${join(dir, SDK_DIR_NAME)}/ (${written.length} files)`);
      for (const k of kept) {
        println(ctx, `kept ${k} (exists; map "@the-loop/hooks" in it yourself)`);
      }
      println(
        ctx,
        `editors and 'deno run --config ${join(dir, "deno.json")}' now resolve @the-loop/hooks`,
      );
    });
}
