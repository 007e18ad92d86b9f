/**
 * Loading a repository's critics and running one round of one of them. {@linkcode loadCritics}
 * reads `.the-loop/harness-config.yaml` (a problem anywhere: {@linkcode CriticConfigError}, exit
 * 2). {@linkcode planRun} turns a critic and the round's inputs into the argv it runs (refusing
 * what cannot run — disabled, a harness with no adapter, `{workItem}` without a work item — as a
 * `CriticConfigError` too, before anything is spawned); {@linkcode runCritic} runs the plan
 * under its timeout ({@linkcode boundedRun}: no shell, the tree killed at the bound) in an
 * environment built as a harness's is (the allowlist of the caller's, `harness_env.ts`), the
 * critic's `env` on top, the-loop's own secrets never, and answers its envelope.
 *
 * @module
 */
import { join } from "node:path";
import {
  adapterFor,
  boundedRun,
  HARNESS_ENV_ALLOWLIST,
  type HarnessAdapter,
  harnessEnvironment,
  type HarnessName,
} from "../../dispatch/mod.ts";
import { parseYaml } from "../../config/mod.ts";
import { ProblemsError } from "../../errors.ts";
import { HARNESS_CONFIG_PATH, readHarnessConfig } from "../harness_config.ts";
import { criticSettings, expandArgs, type PlaceholderValues, uses } from "./argv.ts";
import { type Critic, CriticConfigError, criticsOf, WITHHELD_ENV } from "./config.ts";
import { type CriticEnvelope, criticEnvelope } from "./envelope.ts";

/** A repository's critics, and the file they came from. */
export interface LoadedCritics {
  /** `<root>/.the-loop/harness-config.yaml`. */
  path: string;
  /** Whether that file exists (absent: no critics). */
  found: boolean;
  critics: Critic[];
}

/** Reads the critics of the repository at `root`; throws `CriticConfigError` when misconfigured. */
export async function loadCritics(root: string): Promise<LoadedCritics> {
  let found;
  try {
    found = await readHarnessConfig(root);
  } catch (err) {
    if (err instanceof ProblemsError) throw new CriticConfigError(err.problems);
    throw err;
  }
  if (!found) return { path: join(root, HARNESS_CONFIG_PATH), found: false, critics: [] };
  // positions for the problems (the data is already read; the text is read again to locate)
  let parsed;
  try {
    parsed = parseYaml(await Deno.readTextFile(found.path), found.path);
  } catch { /* located at the file only */ }
  const { critics, problems } = criticsOf(found.data, found.path, parsed);
  if (problems.length) throw new CriticConfigError(problems);
  return { path: found.path, found: true, critics };
}

/** A harness critic's adapter; undefined when this build has none for it. */
export function criticAdapter(critic: Critic): HarnessAdapter | undefined {
  if (critic.kind !== "harness") return undefined;
  try {
    return adapterFor(critic.harness as HarnessName);
  } catch {
    return undefined;
  }
}

/**
 * The argv a critic runs with, placeholders shown as themselves (`{prompt}`): what `critic list`
 * prints. Null for a harness with no adapter in this build.
 */
export function shownArgv(critic: Critic): string[] | null {
  if (critic.kind === "command") return [critic.command, ...critic.args];
  const adapter = criticAdapter(critic);
  if (!adapter) return null;
  return [
    adapter.program,
    ...adapter.headless({
      prompt: "{prompt}",
      extraArgs: [],
      settings: criticSettings(critic.model),
    }),
  ];
}

/** One round's inputs. */
export interface RoundInput {
  prompt: string;
  /** Where the critic runs (absolute). */
  cwd: string;
  workItem?: string;
  /** Overrides the critic's `timeoutSeconds`. */
  timeoutSeconds?: number;
}

/** What a round will run. */
export interface RunPlan {
  critic: Critic;
  program: string;
  /** The arguments after the program; `promptFile` is where `{promptFile}` points (if used). */
  args: string[];
  promptFile?: string;
  timeoutSeconds: number;
  adapter?: HarnessAdapter;
}

/**
 * The plan of one round of `critic`, or a `CriticConfigError` saying why it cannot run. When
 * the args use `{promptFile}`, the prompt is written to a new temp file (mode 0600) the caller
 * removes ({@linkcode runCritic} does).
 */
export async function planRun(critic: Critic, file: string, input: RoundInput): Promise<RunPlan> {
  const refuse = (message: string) => new CriticConfigError([{ file, path: critic.path, message }]);
  if (!critic.enabled) {
    throw refuse(`critic "${critic.name}" is disabled (enabled: false): enable it to run it`);
  }
  const timeoutSeconds = input.timeoutSeconds ?? critic.timeoutSeconds;
  if (critic.kind === "harness") {
    const adapter = criticAdapter(critic);
    if (!adapter) {
      throw refuse(
        `critic "${critic.name}": this the-loop has no adapter for the ${critic.harness} ` +
          "harness yet: use claude or cursor, or a command critic",
      );
    }
    const args = adapter.headless({
      prompt: input.prompt,
      extraArgs: [],
      settings: criticSettings(critic.model),
    });
    return { critic, program: adapter.program, args, timeoutSeconds, adapter };
  }
  if (uses(critic.args, "workItem") && !input.workItem) {
    throw refuse(`critic "${critic.name}" uses {workItem} in its args: pass --work-item REF`);
  }
  let promptFile: string | undefined;
  if (uses(critic.args, "promptFile")) {
    promptFile = await Deno.makeTempFile({ prefix: "the-loop-critic-", suffix: ".md" });
    await Deno.chmod(promptFile, 0o600);
    await Deno.writeTextFile(promptFile, input.prompt);
  }
  const values: PlaceholderValues = {
    prompt: input.prompt,
    promptFile: promptFile ?? "",
    model: critic.model ?? "",
    workItem: input.workItem ?? "",
    cwd: input.cwd,
  };
  return {
    critic,
    program: critic.command,
    args: expandArgs(critic.args, values),
    promptFile,
    timeoutSeconds,
  };
}

/** The POSIX and glibc locale variables (`LC_*` of the allowlist, named one by one). */
const LOCALE_VARS = [
  "LC_ALL",
  "LC_CTYPE",
  "LC_COLLATE",
  "LC_MESSAGES",
  "LC_MONETARY",
  "LC_NUMERIC",
  "LC_TIME",
  "LC_PAPER",
  "LC_NAME",
  "LC_ADDRESS",
  "LC_TELEPHONE",
  "LC_MEASUREMENT",
  "LC_IDENTIFICATION",
];

/**
 * The allowlisted variables of an environment that can only be read by name (a command's
 * `ctx.env`): what a harness would get of it.
 */
export function allowlistedEnv(read: (name: string) => string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  const names = [...HARNESS_ENV_ALLOWLIST.filter((n) => !n.endsWith("*")), ...LOCALE_VARS];
  for (const name of names) {
    const v = read(name);
    if (v !== undefined) out[name] = v;
  }
  return out;
}

/** A critic's whole environment: a harness's (the allowlist of `base`), then its overlay. */
export function criticEnvironment(
  critic: Critic,
  base: Record<string, string>,
): Record<string, string> {
  const env = { ...harnessEnvironment({ base, withhold: WITHHELD_ENV }), ...critic.env };
  for (const name of WITHHELD_ENV) delete env[name];
  return env;
}

/** Runs the plan in `cwd` with the environment built from `base`; removes the prompt file. */
export async function runCritic(
  plan: RunPlan,
  o: { cwd: string; base: Record<string, string> },
): Promise<CriticEnvelope> {
  try {
    const result = await boundedRun({
      program: plan.program,
      args: plan.args,
      cwd: o.cwd,
      env: criticEnvironment(plan.critic, o.base),
      timeoutMs: plan.timeoutSeconds * 1000,
    });
    return criticEnvelope({
      critic: plan.critic,
      program: plan.program,
      result,
      timeoutSeconds: plan.timeoutSeconds,
      adapter: plan.adapter,
    });
  } finally {
    if (plan.promptFile) await Deno.remove(plan.promptFile).catch(() => {});
  }
}
