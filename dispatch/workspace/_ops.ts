/**
 * The git steps of a prepare or cleanup, each turning a failing git into a
 * {@linkcode WorkspaceError} that names the step, quotes git (token redacted) and says what to do.
 *
 * @module
 */
import type { GitResult, GitRun } from "./git.ts";
import { redact } from "./_auth.ts";
import { WorkspaceError, type WorkspaceStep } from "./error.ts";

/** What every step of one operation shares. */
export interface OpsContext {
  run: GitRun;
  /** The work item's ref, for messages. */
  ref: string;
  token?: string;
  /** The token's environment, passed to the steps that talk to the remote. */
  auth: Record<string, string>;
  signal?: AbortSignal;
}

/** One step's call. */
export interface StepCall {
  step: WorkspaceStep;
  args: string[];
  /** Talks to the remote (gets the token's environment). */
  network?: boolean;
  stdin?: string;
  /** What to do when it fails. */
  hint: string;
}

/** Runs git steps for one operation. */
export class Ops {
  readonly #ctx: OpsContext;

  constructor(ctx: OpsContext) {
    this.#ctx = ctx;
  }

  /** Runs a step; a non-zero exit is returned, not thrown. */
  try(call: Omit<StepCall, "hint">): Promise<GitResult> {
    return this.#ctx.run({
      args: call.args,
      env: call.network ? this.#ctx.auth : undefined,
      stdin: call.stdin,
      signal: this.#ctx.signal,
    });
  }

  /** Runs a step; a non-zero exit throws a {@linkcode WorkspaceError}. Resolves with stdout. */
  async must(call: StepCall): Promise<string> {
    const result = await this.try(call);
    if (result.code !== 0) throw this.error(call, result);
    return result.stdout;
  }

  /** The error of a failed step. */
  error(call: StepCall, result: GitResult): WorkspaceError {
    const said = redact(result.stderr.trim() || result.stdout.trim(), this.#ctx.token)
      .split("\n").slice(-5).join(" / ");
    const argv = redact(["git", ...call.args].join(" "), this.#ctx.token);
    return new WorkspaceError(
      call.step,
      `${this.#ctx.ref}: \`${argv}\` failed (exit ${result.code}): ${
        said || "no output"
      }. ${call.hint}`,
    );
  }

  /** Fails with `message` (no git output to quote). */
  fail(step: WorkspaceStep, message: string): never {
    throw new WorkspaceError(step, `${this.#ctx.ref}: ${message}`);
  }
}
