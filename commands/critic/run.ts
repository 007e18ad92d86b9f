/**
 * `the-loop critic run NAME (--prompt TEXT | --prompt-file PATH) [--root DIR] [--cwd DIR]
 * [--work-item REF] [--timeout S] [--output-file PATH]`: one round of one critic. It spawns the
 * critic's argv (no shell) in `--cwd` (default: the repository root) under its timeout
 * (`--timeout` overrides `timeoutSeconds`; at the bound the process tree is killed) and prints
 * exactly one JSON document on stdout: the envelope (`commands/_envelope.ts`, `config` null) with
 * the round's fields — `critic, harness, model, exitCode, durationSeconds, output, error, usage`
 * (`schema/cli/critic-run.json`); `--output-file` writes the same document there, atomically.
 *
 * Exit 0: the round ran (`ok: true`). Exit 1: it failed — the CLI is absent, it exited non-zero,
 * it timed out — the document still printed, `ok: false`, `error` saying what failed and what to
 * do (also on stderr). Exit 2: misconfigured or misused (an unknown or disabled critic, a bad
 * `harness-config.yaml`, a bad flag): nothing was spawned and no document is printed.
 *
 * @module
 */
import type { Command } from "commander";
import { isAbsolute, resolve } from "node:path";
import { messageOf, UsageError } from "../../errors.ts";
import {
  allowlistedEnv,
  CriticConfigError,
  type CriticEnvelope,
  loadCritics,
  planRun,
  runCritic,
} from "../../repo/critic/mod.ts";
import { repoRoot } from "../../repo/harness_config.ts";
import { writeFileAtomic } from "../../state/atomic.ts";
import { didYouMean } from "../../config/mod.ts";
import type { CliContext } from "../context.ts";
import { envelope } from "../_envelope.ts";
import { toJson } from "../_output.ts";

interface RunFlags {
  prompt?: string;
  promptFile?: string;
  root?: string;
  cwd?: string;
  workItem?: string;
  timeout?: string;
  outputFile?: string;
}

/** The document `critic run` prints: the envelope with the round's fields. */
export function runDocument(e: CriticEnvelope) {
  const { ok, ...fields } = e;
  return envelope("critic run", {
    ok,
    config: null,
    problems: ok ? [] : [{ message: e.error ?? "the round failed" }],
  }, fields);
}

const abs = (ctx: CliContext, p: string) => isAbsolute(p) ? p : resolve(ctx.cwd, p);

async function promptOf(ctx: CliContext, flags: RunFlags): Promise<string> {
  if ((flags.prompt === undefined) === (flags.promptFile === undefined)) {
    throw new UsageError("critic run: give exactly one of --prompt TEXT or --prompt-file PATH");
  }
  if (flags.prompt !== undefined) return flags.prompt;
  try {
    return await Deno.readTextFile(abs(ctx, flags.promptFile!));
  } catch (err) {
    throw new UsageError(`--prompt-file ${flags.promptFile}: cannot read it (${messageOf(err)})`);
  }
}

function timeoutOf(flag: string | undefined): number | undefined {
  if (flag === undefined) return undefined;
  const n = Number(flag);
  if (!Number.isFinite(n) || n <= 0) {
    throw new UsageError(`--timeout ${flag}: must be a number of seconds above 0`);
  }
  return n;
}

async function cwdOf(ctx: CliContext, flag: string | undefined, root: string): Promise<string> {
  const dir = flag === undefined ? root : abs(ctx, flag);
  try {
    if ((await Deno.stat(dir)).isDirectory) return dir;
  } catch { /* below */ }
  throw new UsageError(`--cwd ${flag ?? dir}: not a directory`);
}

async function run(ctx: CliContext, name: string, flags: RunFlags): Promise<void> {
  const prompt = await promptOf(ctx, flags);
  const timeoutSeconds = timeoutOf(flags.timeout);
  const root = await repoRoot({ root: flags.root, cwd: ctx.cwd });
  const loaded = await loadCritics(root);
  const critic = loaded.critics.find((c) => c.name === name);
  if (!critic) {
    const names = loaded.critics.map((c) => c.name);
    const hint = didYouMean(name, names);
    throw new CriticConfigError([{
      file: loaded.path,
      message: !loaded.found
        ? `no critic "${name}": the file does not exist (declare reviews.critics there)`
        : `no critic "${name}" in reviews.critics${hint ? ` (did you mean "${hint}"?)` : ""}` +
          (names.length ? `; declared: ${names.join(", ")}` : "; none is declared"),
    }]);
  }
  const cwd = await cwdOf(ctx, flags.cwd, root);
  const plan = await planRun(critic, loaded.path, {
    prompt,
    cwd,
    workItem: flags.workItem,
    timeoutSeconds,
  });
  ctx.warn(`critic "${critic.name}": running ${plan.program} (timeout ${plan.timeoutSeconds}s)\n`);
  const result = await runCritic(plan, { cwd, base: allowlistedEnv(ctx.env) });
  const text = toJson(runDocument(result));
  ctx.write(text);
  if (flags.outputFile !== undefined) {
    await writeFileAtomic(abs(ctx, flags.outputFile), text, { durable: false });
  }
  ctx.warn(
    `critic "${critic.name}": ${result.ok ? "done" : "failed"} after ` +
      `${result.durationSeconds}s (exit ${result.exitCode ?? "none"})\n`,
  );
  if (!result.ok) throw new Error(result.error ?? `critic "${critic.name}" failed`);
}

/** Adds `run` to the `critic` group. */
export function register(group: Command, ctx: CliContext): void {
  group.command("run")
    .description("run one round of one critic; prints its JSON envelope (exit 1: it failed)")
    .argument("<name>", "the critic's name (reviews.critics[].name)")
    .option("--prompt <text>", "the prompt (one argv element, never through a shell)")
    .option("--prompt-file <path>", "read the prompt from this file")
    .option("--root <dir>", "the repository (default: the git top of the working directory)")
    .option("--cwd <dir>", "where the critic runs (default: the repository root)")
    .option("--work-item <ref>", "the work item, for {workItem} (e.g. github:octo/repo#12)")
    .option("--timeout <seconds>", "overrides the critic's timeoutSeconds")
    .option("--output-file <path>", "also write the envelope to this file (atomically)")
    .action((name: string, flags: RunFlags) => run(ctx, name, flags));
}
