/**
 * The critics a repository declares: `reviews.critics[]` of `.the-loop/harness-config.yaml`,
 * read strictly. Each is a harness critic `{name, harness}` (`claude`, `cursor`, `codex`,
 * `gemini`, `opencode`) or a command critic `{name, command, args}` (`command` is argv[0], `args`
 * a list whose elements may hold the placeholders of {@linkcode PLACEHOLDERS}), with optional
 * `model`, `env` (an overlay of the critic's environment; the file is committed, so a value that
 * looks like a token and the-loop's own secrets' names are refused), `timeoutSeconds` (default
 * {@linkcode DEFAULT_TIMEOUT_SECONDS}) and `enabled` (default true). Every problem is reported,
 * each at `file:line:col` with its key path, as a {@linkcode CriticConfigError} (exit 2: the
 * repository is misconfigured, nothing is run).
 *
 * @module
 */
import {
  didYouMean,
  formatKeyPath,
  type KeyPath,
  locateNear,
  type ParsedYaml,
} from "../../config/mod.ts";
import { maskTokens } from "../../config/secrets.ts";
import { byPosition, plural, type Problem, problemsSummary, UsageError } from "../../errors.ts";
import { unknownPlaceholders } from "./argv.ts";

/** The harnesses a critic may name. */
export const CRITIC_HARNESSES = ["claude", "cursor", "codex", "gemini", "opencode"] as const;

/** A harness a critic may name. */
export type CriticHarness = typeof CRITIC_HARNESSES[number];

/** A critic's timeout when it sets none. */
export const DEFAULT_TIMEOUT_SECONDS = 600;

/** The variables an `env` overlay may never set: the-loop's own secrets. */
export const WITHHELD_ENV: readonly string[] = [
  "GH_TOKEN",
  "GITHUB_TOKEN",
  "THE_LOOP_GH_WEBHOOK_SECRET",
];

/** What every critic has. */
interface CriticBase {
  name: string;
  model: string | null;
  /** The overlay put on top of the critic's environment (`{}`: none). */
  env: Record<string, string>;
  timeoutSeconds: number;
  enabled: boolean;
  /** Its key path in the file: `reviews.critics[1]`. */
  path: string;
}

/** A critic run through a harness adapter. */
export interface HarnessCritic extends CriticBase {
  kind: "harness";
  harness: CriticHarness;
}

/** A critic that is a command: argv[0] and its arguments (placeholders not yet filled). */
export interface CommandCritic extends CriticBase {
  kind: "command";
  command: string;
  args: string[];
}

/** One declared critic. */
export type Critic = HarnessCritic | CommandCritic;

/** The repository is misconfigured: nothing was run. Exit 2 (a `UsageError`). */
export class CriticConfigError extends UsageError {
  override name = "CriticConfigError";
  readonly problems: Problem[];
  constructor(problems: Problem[], heading?: string) {
    const sorted = [...problems].sort(byPosition);
    super(
      sorted.length === 1 && !heading
        ? formatOne(sorted[0])
        : problemsSummary(sorted, heading ?? `${plural(sorted.length, "problem")} in the critics`),
    );
    this.problems = sorted;
  }
}

function formatOne(p: Problem): string {
  return problemsSummary([p], "the critics are misconfigured").replace(":\n  ", ": ");
}

const KEYS = ["name", "harness", "command", "args", "model", "env", "timeoutSeconds", "enabled"];
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Locates `path` (its key when `key`), else the nearest enclosing value, else the file's start. */
function near(parsed: ParsedYaml | undefined, path: KeyPath, key = false) {
  return parsed ? locateNear(parsed, path, key) : {};
}

/**
 * The critics of a harness config's `data`, or every problem found (none: `problems` empty).
 * `parsed` locates them in `file`. A config without `reviews.critics` declares none.
 */
export function criticsOf(
  data: Record<string, unknown>,
  file: string,
  parsed?: ParsedYaml,
): { critics: Critic[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const problem = (path: KeyPath, message: string, key = false) =>
    problems.push({
      file,
      ...near(parsed, path, key),
      path: maskTokens(formatKeyPath(path)),
      message: maskTokens(message),
    });
  const critics: Critic[] = [];
  const reviews = data.reviews;
  if (reviews === undefined || reviews === null) return { critics, problems };
  if (!isMap(reviews)) {
    problem(["reviews"], "must be a mapping (with `critics:`)");
    return { critics, problems };
  }
  const list = reviews.critics;
  if (list === undefined || list === null) return { critics, problems };
  if (!Array.isArray(list)) {
    problem(["reviews", "critics"], "must be a list of critics (`- name: …`)");
    return { critics, problems };
  }
  const seen = new Map<string, number>();
  list.forEach((entry, i) => {
    const at: KeyPath = ["reviews", "critics", i];
    const before = problems.length;
    if (!isMap(entry)) {
      problem(at, "must be a mapping: {name, harness} or {name, command, args}");
      return;
    }
    for (const k of Object.keys(entry)) {
      if (KEYS.includes(k)) continue;
      const hint = didYouMean(k, KEYS);
      problem([...at, k], `unknown key${hint ? ` (did you mean "${hint}"?)` : ""}`, true);
    }
    const name = entry.name;
    if (typeof name !== "string" || !NAME.test(name)) {
      problem(
        name === undefined ? at : [...at, "name"],
        name === undefined
          ? "needs a name"
          : "name: letters, digits, `.`, `_` and `-`, starting with a letter or digit",
      );
    } else if (seen.has(name)) {
      problem(
        [...at, "name"],
        `"${name}" is already the name of reviews.critics[${seen.get(name)}]`,
      );
    } else seen.set(name, i);
    const { harness, command, args } = entry;
    if (harness !== undefined && command !== undefined) {
      problem(at, "has both harness and command: a critic is one or the other");
    } else if (harness === undefined && command === undefined) {
      problem(at, `needs a harness (${CRITIC_HARNESSES.join(", ")}) or a command`);
    }
    if (harness !== undefined && !(CRITIC_HARNESSES as readonly unknown[]).includes(harness)) {
      const hint = typeof harness === "string" ? didYouMean(harness, CRITIC_HARNESSES) : undefined;
      problem(
        [...at, "harness"],
        `must be one of ${CRITIC_HARNESSES.join(", ")}${hint ? ` (did you mean "${hint}"?)` : ""}`,
      );
    }
    if (command !== undefined) {
      if (typeof command !== "string" || command.trim() === "") {
        problem([...at, "command"], "must be a program (argv[0]): a name on PATH or a path");
      } else if (unknownPlaceholders(command, true).length) {
        problem([...at, "command"], "is argv[0] and takes no placeholders: put them in args");
      }
    }
    if (args !== undefined) {
      if (harness !== undefined) {
        problem(
          [...at, "args"],
          "is for command critics: a harness critic's argv is its adapter's",
        );
      } else if (!Array.isArray(args) || args.some((a) => typeof a !== "string")) {
        problem([...at, "args"], "must be a list of strings (one argv element each)");
      } else {
        args.forEach((a: string, j) => {
          const unknown = unknownPlaceholders(a);
          if (unknown.length) {
            problem(
              [...at, "args", j],
              `unknown placeholder ${unknown.map((u) => `{${u}}`).join(", ")}: ` +
                "use {prompt}, {promptFile}, {model}, {workItem} or {cwd}",
            );
          }
        });
        if (entry.model === undefined && args.some((a: string) => a.includes("{model}"))) {
          problem([...at, "args"], "uses {model} but the critic sets no model");
        }
      }
    }
    const model = entry.model;
    if (model !== undefined && (typeof model !== "string" || model.trim() === "")) {
      problem([...at, "model"], "must be a model name (a string)");
    }
    const env: Record<string, string> = {};
    if (entry.env !== undefined) {
      if (!isMap(entry.env)) problem([...at, "env"], "must be a mapping of NAME: value");
      else {
        for (const [k, v] of Object.entries(entry.env)) {
          const where: KeyPath = [...at, "env", k];
          if (!ENV_NAME.test(k)) {
            problem(where, "not a variable name (letters, digits and _)", true);
          } else if (WITHHELD_ENV.includes(k)) {
            problem(
              where,
              `${k} is one of the-loop's own secrets and never reaches a critic: remove it`,
              true,
            );
          } else if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") {
            problem(where, "must be a string, number or boolean");
          } else if (maskTokens(String(v)) !== String(v)) {
            problem(
              where,
              "this looks like a secret, and harness-config.yaml is committed: remove it " +
                "(a critic gets no secrets from this file)",
            );
          } else env[k] = String(v);
        }
      }
    }
    const timeout = entry.timeoutSeconds;
    if (
      timeout !== undefined &&
      (typeof timeout !== "number" || !Number.isInteger(timeout) || timeout < 1)
    ) {
      problem([...at, "timeoutSeconds"], "must be a whole number of seconds, at least 1");
    }
    if (entry.enabled !== undefined && typeof entry.enabled !== "boolean") {
      problem([...at, "enabled"], "must be true or false");
    }
    if (problems.length > before) return;
    const base: CriticBase = {
      name: name as string,
      model: (model as string | undefined) ?? null,
      env,
      timeoutSeconds: (timeout as number | undefined) ?? DEFAULT_TIMEOUT_SECONDS,
      enabled: (entry.enabled as boolean | undefined) ?? true,
      path: formatKeyPath(at),
    };
    critics.push(
      harness !== undefined ? { ...base, kind: "harness", harness: harness as CriticHarness } : {
        ...base,
        kind: "command",
        command: command as string,
        args: [...((args as string[] | undefined) ?? [])],
      },
    );
  });
  return { critics, problems: problems.sort(byPosition) };
}
