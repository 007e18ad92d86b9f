/**
 * The one envelope every `--format json` document is printed in (docs/ci.md; the shapes are
 * published as JSON Schemas under `schema/cli/`):
 *
 * ```json
 * { "schemaVersion": 1, "command": "hooks validate", "ok": false,
 *   "config": { "path": "/repo/.the-loop/cli-config.yaml", "source": "found", "searched": […] },
 *   "problems": [{ "file": "…", "line": 3, "col": 5, "path": "hooks[0]", "message": "…" }],
 *   …the command's own fields }
 * ```
 *
 * It is printed in every outcome — success, problems, an unreadable or invalid config — and the
 * exit code carries the same verdict (0 when `ok`, 1 otherwise). A usage error (exit 2) prints no
 * JSON: the command line itself was wrong.
 *
 * @module
 */
import type { ConfigSource } from "../config/mod.ts";
import { messageOf, type Problem, ProblemsError, UsageError } from "../errors.ts";
import type { CliContext } from "./context.ts";
import { toJson } from "./_output.ts";

/** The envelope's version: bumped only when a field is removed or changes its type. */
export const SCHEMA_VERSION = 1;

/** Which config a command read (or tried to read). */
export interface ConfigRef {
  /** Absolute path of the file; null when none was found (defaults apply). */
  path: string | null;
  /** `flag`, `env`, `found`, `home` or `none`. */
  source: ConfigSource;
  /** The `.the-loop` folders the lookup tried ([] when the file was named explicitly). */
  searched: string[];
}

/** The fields every document starts with. */
export interface Envelope {
  schemaVersion: typeof SCHEMA_VERSION;
  /** The command's words, e.g. `hooks validate`. */
  command: string;
  ok: boolean;
  config: ConfigRef | null;
  problems: Problem[];
}

/** What {@linkcode envelope} takes besides the command's own fields. */
export interface EnvelopeHead {
  ok: boolean;
  config: ConfigRef | null;
  problems?: readonly Problem[];
}

const RESERVED = new Set(["schemaVersion", "command", "ok", "config", "problems"]);

/** A config (loaded or only resolved) as the envelope names it. */
export function configRef(c: { path: string | null; source: ConfigSource; searched: string[] }) {
  return { path: c.path, source: c.source, searched: [...c.searched] } satisfies ConfigRef;
}

/** A problem with exactly the envelope's fields (`file`, `line`, `col`, `path`, `message`). */
export function problemOf(p: Problem): Problem {
  return {
    ...(p.file !== undefined ? { file: p.file } : {}),
    ...(p.line !== undefined ? { line: p.line } : {}),
    ...(p.col !== undefined ? { col: p.col } : {}),
    ...(p.path !== undefined ? { path: p.path } : {}),
    message: p.message,
  };
}

/** The problems an error stands for: a `ProblemsError`'s own, else its message as one. */
export function problemsOfError(error: unknown): Problem[] {
  return error instanceof ProblemsError
    ? error.problems.map(problemOf)
    : [{ message: messageOf(error) }];
}

/** The document: the envelope, then `fields` (which may not reuse an envelope field's name). */
export function envelope(
  command: string,
  head: EnvelopeHead,
  fields: Record<string, unknown> = {},
): Envelope & Record<string, unknown> {
  const clash = Object.keys(fields).find((k) => RESERVED.has(k));
  if (clash) throw new Error(`envelope: "${clash}" is an envelope field`);
  return {
    schemaVersion: SCHEMA_VERSION,
    command,
    ok: head.ok,
    config: head.config,
    problems: (head.problems ?? []).map(problemOf),
    ...fields,
  };
}

/** Prints the document, as every `--format json` prints it. */
export function printEnvelope(
  ctx: CliContext,
  command: string,
  head: EnvelopeHead,
  fields: Record<string, unknown> = {},
): void {
  ctx.write(toJson(envelope(command, head, fields)));
}

/**
 * The config a failed run was reading, resolved again without reading it: where the lookup led
 * (or the file named by `--config`/`$THE_LOOP_CLI_CONFIG`, even when it does not exist); null
 * when even that cannot be told.
 */
export async function configRefOf(ctx: CliContext): Promise<ConfigRef | null> {
  const { explicitConfigPath, resolveConfigPath } = await import("../config/mod.ts");
  const input = { flag: ctx.configFlag(), env: ctx.env, cwd: ctx.cwd };
  try {
    return configRef(await resolveConfigPath(input));
  } catch {
    const named = explicitConfigPath(input);
    return named ? configRef({ ...named, searched: [] }) : null;
  }
}

/** Options for {@linkcode jsonOnFailure}. */
export interface JsonOnFailureOptions {
  /** Print JSON at all (`--format json`)? */
  json: boolean;
  /** The command's words. */
  command: string;
  /** The command's own fields for a run that failed early, e.g. `{ hooks: [] }`. */
  fields?: Record<string, unknown>;
}

/**
 * Runs `run` with a context that notes whether it printed; when it throws before printing (its
 * config did not load, its input was unreadable, …) and JSON was asked for, prints the envelope
 * with `ok: false` and the error's problems, then throws the error on (main.ts prints it on
 * stderr and exits 1). A `UsageError` prints nothing: it stays exit 2 with text on stderr.
 */
export async function jsonOnFailure(
  ctx: CliContext,
  opts: JsonOnFailureOptions,
  run: (ctx: CliContext) => Promise<void> | void,
): Promise<void> {
  let printed = false;
  const noting: CliContext = {
    ...ctx,
    write: (text) => {
      printed = true;
      ctx.write(text);
    },
  };
  try {
    await run(opts.json ? noting : ctx);
  } catch (error) {
    if (opts.json && !printed && !(error instanceof UsageError)) {
      printEnvelope(ctx, opts.command, {
        ok: false,
        config: await configRefOf(ctx),
        problems: problemsOfError(error),
      }, opts.fields);
    }
    throw error;
  }
}
