/**
 * `the-loop hooks init <name> [--kind module|command|remote] [--dir DIR] [--port N] [--force]`:
 * writes a commented starter hook that passes `hooks test` and `hooks validate` as written,
 * with a sample context for `hooks test`, and prints the declaration to paste under `hooks:`.
 * Files go to `<config dir>/hooks/` (`./.the-loop/hooks/` when there is no config file yet).
 *
 * @module
 */
import { type Command, Option } from "commander";
import { isAbsolute, join, relative, resolve } from "node:path";
import { UsageError } from "../../errors.ts";
import { writeFileAtomic } from "../../state/atomic.ts";
import { loadCliConfig } from "../_config.ts";
import { type CliContext, println } from "../context.ts";
import { SDK_DIR_NAME, writeSdk } from "./_sdk_files.ts";
import { className, fill, type Kind, KINDS, snippet, STARTERS } from "./_templates.ts";
import { exists } from "../../state/files.ts";
import { configDirOf, defaultHooksDir } from "./_paths.ts";

const NAME = /^[a-z][a-z0-9-]*$/;

interface InitFlags {
  kind: Kind;
  dir?: string;
  port: string;
  force?: boolean;
}

/** Registers `hooks init`. */
export function register(hooks: Command, ctx: CliContext): void {
  hooks.command("init")
    .description("write a commented starter hook and print the declaration to paste")
    .argument("<name>", "the hook's name: lowercase letters, digits and -, starting with a letter")
    .addOption(new Option("--kind <kind>", "the kind of hook").choices(KINDS).default("module"))
    .option("--dir <dir>", "where to write it (default: hooks/ beside the config file)")
    .option("--port <port>", "remote: the port the server listens on", "8790")
    .option("--force", "overwrite existing files")
    .action((name: string, flags: InitFlags) => init(ctx, name, flags));
}

function shown(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel.startsWith("..") || isAbsolute(rel) ? path : rel;
}

async function init(ctx: CliContext, name: string, flags: InitFlags): Promise<void> {
  if (!NAME.test(name)) {
    throw new UsageError(
      `hook name "${name}" must be lowercase letters, digits and -, starting with a letter ` +
        `(e.g. house-policy)`,
    );
  }
  const port = Number(flags.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new UsageError(`--port: must be a port number 1-65535 (got '${flags.port}')`);
  }
  const loaded = await loadCliConfig(ctx);
  const configDir = configDirOf(loaded, ctx.cwd);
  const dir = flags.dir ? resolve(ctx.cwd, flags.dir) : defaultHooksDir(loaded, ctx.cwd);
  const starter = STARTERS[flags.kind];
  const file = join(dir, name + starter.suffix);
  const contextFile = join(dir, `${name}.context.json`);
  if (!flags.force) {
    const taken = [];
    for (const f of [file, contextFile]) if (await exists(f)) taken.push(f);
    if (taken.length) {
      throw new Error(
        `${taken.join(" and ")} already exist${taken.length === 1 ? "s" : ""}; ` +
          `use --force to overwrite, or pick another name`,
      );
    }
  }
  const context = shown(contextFile, ctx.cwd);
  const text = fill(starter.text, {
    name,
    class: className(name),
    context,
    file: shown(file, ctx.cwd),
    denojson: shown(join(dir, "deno.json"), ctx.cwd),
    port: String(port),
  });
  await writeFileAtomic(file, text, { mode: starter.mode });
  await writeFileAtomic(contextFile, starter.context);
  println(ctx, `wrote ${file}`);
  if (flags.kind !== "command") {
    const sdk = await writeSdk(dir);
    println(ctx, `wrote ${join(dir, SDK_DIR_NAME)}/ (the SDK, so editors resolve @the-loop/hooks)`);
    for (const k of sdk.kept) println(ctx, `kept ${k}: map "@the-loop/hooks" in it yourself`);
  }
  println(ctx, `wrote ${contextFile} (a sample ${starter.point} context for 'hooks test')`);
  println(ctx);
  const where = loaded.path ??
    `${join(configDir, "cli-config.yaml")} (none yet: 'the-loop init' writes it)`;
  // a file that already has `hooks:` gets the entry alone, to add to that list
  const header = !(loaded.path && loaded.locate(["hooks"]));
  println(
    ctx,
    header
      ? `paste this into ${where}; the path is relative to that file's directory:`
      : `add this entry to the hooks: list in ${where} (a block list, not [])` +
        "; the path is relative to that file's directory:",
  );
  println(ctx);
  ctx.write(snippet({ name, kind: flags.kind, path: relative(configDir, file), port, header }));
  println(ctx);
  println(ctx, "then:");
  if (flags.kind === "remote") {
    const config = shown(join(dir, "deno.json"), ctx.cwd);
    println(
      ctx,
      `  deno run --config ${config} --allow-net --allow-env ${shown(file, ctx.cwd)}   # start it`,
    );
  }
  println(ctx, `  the-loop hooks test ${name} --point ${starter.point} --context ${context}`);
  println(ctx, `  the-loop hooks validate${flags.kind === "remote" ? " --online" : ""}`);
}
