/**
 * What the verbs of the control endpoint (`advance`, `ask`, `reply`, `verdict`) share: the work item (REF,
 * else `$THE_LOOP_WORK_ITEM`), the session's capability (`$THE_LOOP_SESSION`), the daemon's
 * socket (`$THE_LOOP_CONTROL`, else the config's `state.root`: `gh-webhook.sock`, then
 * `poll.sock`), one request sent, the answer printed and exited with. See
 * `docs/agent-commands.md`.
 *
 * | what happens                                    | exit | prints                           |
 * | ----------------------------------------------- | ---- | -------------------------------- |
 * | the daemon did it (or it was a no-op)           | 0    | its message (stdout)             |
 * | the daemon refused it, or it failed             | 1    | its message (stderr)             |
 * | no daemon answers                               | 1    | which state root, what to start  |
 * | `advance`/`ask` with no `$THE_LOOP_SESSION`     | 1    | run it from inside a session     |
 * | no REF and no `$THE_LOOP_WORK_ITEM`, an empty   | 2    | what is missing; nothing is sent |
 * | text, a malformed request                       |      |                                  |
 *
 * With `--format json` the document is the envelope of docs/ci.md with the verb's fields
 * (`schema/cli/verb.json`), printed in every outcome but exit 2.
 *
 * @module
 */
import { dirname } from "node:path";
import type { ControlResponse } from "../daemon/mod.ts";
import { messageOf, UsageError } from "../errors.ts";
import { parseWorkItem } from "../state/work_item.ts";
import { type CliContext, println } from "./context.ts";
import {
  type ConfigRef,
  configRef,
  configRefOf,
  printEnvelope,
  problemsOfError,
} from "./_envelope.ts";
import { loadCliConfig } from "./_config.ts";

/** A verb's name, as the request and the envelope's `command` say it. */
export type VerbCommand = "advance" | "ask" | "reply" | "verdict";

/** What one verb sends, besides `v`, `verb`, `ref` and `capability`. */
export interface VerbCall {
  verb: VerbCommand;
  /** REF as given (undefined: `$THE_LOOP_WORK_ITEM`). */
  ref: string | undefined;
  /** The verb's own fields (`outcome`, `question`, `text`, …). */
  fields: Record<string, string | undefined>;
  /** `advance` and `ask`: the session's capability is required. */
  needsCapability: boolean;
  format: "text" | "json";
}

/** The work item's ref: REF, else `$THE_LOOP_WORK_ITEM`; exit 2 when neither or not a ref. */
function refOf(call: VerbCall, ctx: CliContext): string {
  const given = call.ref?.trim() || ctx.env("THE_LOOP_WORK_ITEM")?.trim();
  if (!given) {
    throw new UsageError(
      `${call.verb}: which work item? give REF (github:OWNER/REPO#N), or run it from inside ` +
        "a the-loop session ($THE_LOOP_WORK_ITEM names its item)",
    );
  }
  const item = parseWorkItem(given);
  if (!item) {
    throw new UsageError(`${call.verb}: not a work item ref: ${given} (github:OWNER/REPO#N)`);
  }
  return item.ref;
}

/** Where to knock: `$THE_LOOP_CONTROL`, else the config's state root's sockets. */
async function socketsOf(
  ctx: CliContext,
): Promise<{ paths: string[]; root: string; config: ConfigRef | null }> {
  const named = ctx.env("THE_LOOP_CONTROL")?.trim();
  if (named) return { paths: [named], root: dirname(named), config: null };
  const loaded = await loadCliConfig(ctx);
  const { controlSocketPath } = await import("../daemon/mod.ts");
  const root = loaded.config.state.root;
  return {
    paths: [controlSocketPath(root, "gh-webhook"), controlSocketPath(root, "poll")],
    root,
    config: configRef(loaded),
  };
}

/**
 * The first daemon among `paths` that answers `request`: its answer and socket, or `undefined`
 * when none runs there (a failure other than "not running" throws).
 */
async function knock(
  paths: string[],
  request: Record<string, unknown>,
): Promise<{ answer: ControlResponse; socket: string } | undefined> {
  const { callControl, NotRunningError } = await import("../daemon/mod.ts");
  for (const socket of paths) {
    try {
      return { answer: await callControl(socket, request), socket };
    } catch (error) {
      if (!(error instanceof NotRunningError)) throw error;
    }
  }
  return undefined;
}

/**
 * Sends `request` to the daemon of the config's state root (as {@linkcode runVerb} finds it):
 * its answer, or `undefined` when no daemon runs there. For the commands that tell a running
 * daemon what they did (`sessions resume`).
 */
export async function tellDaemon(
  ctx: CliContext,
  request: Record<string, unknown>,
): Promise<ControlResponse | undefined> {
  return (await knock((await socketsOf(ctx)).paths, request))?.answer;
}

/** Runs one verb: see the module doc. */
export async function runVerb(call: VerbCall, ctx: CliContext): Promise<void> {
  const ref = refOf(call, ctx);
  for (const [name, value] of Object.entries(call.fields)) {
    if (value !== undefined && !value.trim() && name !== "node" && name !== "summary") {
      throw new UsageError(`${call.verb}: --${name} is empty: nothing was sent`);
    }
  }
  let config: ConfigRef | null = null;
  let socket: string | null = null;
  const json = call.format === "json";
  const fail = (why: string | Error, data: Record<string, unknown> | null = null): never => {
    const error = typeof why === "string" ? new Error(why) : why;
    if (json) {
      printEnvelope(ctx, call.verb, {
        ok: false,
        config,
        problems: problemsOfError(error),
      }, { verb: call.verb, workItem: ref, socket, exit: 1, message: messageOf(error), data });
    }
    throw error;
  };
  const capability = ctx.env("THE_LOOP_SESSION")?.trim();
  if (call.needsCapability && !capability) {
    fail(
      `${call.verb}: run this from inside a the-loop session ($THE_LOOP_SESSION, the ` +
        "session's capability, is not set)",
    );
  }
  let where: Awaited<ReturnType<typeof socketsOf>>;
  try {
    where = await socketsOf(ctx);
  } catch (error) {
    config = await configRefOf(ctx); // the config that did not load
    return fail(error instanceof Error ? error : new Error(String(error)));
  }
  config = where.config;
  const request = {
    v: 1,
    verb: call.verb,
    ref,
    // a reply sends the session's capability too, when there is one: the daemon refuses an
    // answer sent from inside a session
    ...(call.needsCapability || capability ? { capability } : {}),
    ...Object.fromEntries(Object.entries(call.fields).filter(([, v]) => v !== undefined)),
  };
  let knocked;
  try {
    knocked = await knock(where.paths, request);
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
  if (!knocked) {
    return fail(
      `no the-loop daemon is running for ${where.root}; start \`the-loop poll start\` or ` +
        "`the-loop gh-webhook start`",
    );
  }
  const { answer } = knocked;
  socket = knocked.socket;
  if (answer.exit === 2) throw new UsageError(answer.message);
  if (answer.exit === 1) return fail(answer.message, answer.data ?? null);
  if (json) {
    printEnvelope(ctx, call.verb, { ok: true, config }, {
      verb: call.verb,
      workItem: ref,
      socket,
      exit: 0,
      message: answer.message,
      data: answer.data ?? null,
    });
  } else println(ctx, answer.message);
}
