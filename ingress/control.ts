/**
 * The daemon's control endpoint over its routing stack: what `openLiveIngress` sets up when a
 * daemon asks for it (`poll start`: `<state.root>/poll.sock`, `gh-webhook start`:
 * `<state.root>/gh-webhook.sock`).
 *
 * 1. {@linkcode prepareControl}, before the stack opens (the daemon holds its pidfile lock): the
 *    socket's path checked, the session key made or read (`daemon/session_key.ts`), the
 *    `the-loop` launcher written to `<state.root>/bin` (`dispatch/agent_env.ts`); what the
 *    dispatch stack needs to give each session its environment.
 * 2. {@linkcode serveVerbs}, once the stack is open: the socket served (`daemon/control_socket.ts`)
 *    by {@linkcode verbHandler}.
 *
 * {@linkcode verbHandler} reads one request `{"v":1,"verb":…,"ref":…,"capability"?:…, …}`:
 *
 * | the request …                                        | the answer                              |
 * | ---------------------------------------------------- | --------------------------------------- |
 * | not `v: 1`, an unknown verb, a field missing/empty   | exit 2, nothing done                    |
 * | a ref that is not a work item's                      | exit 2, nothing done                    |
 * | `advance`/`ask` without the ref's capability         | exit 1 (`control.verb_refused`)         |
 * | a daemon without sessions (`dispatcher: journal`)    | exit 1, saying so                       |
 * | anything else                                        | `dispatcher.act`'s result (`control.verb`) |
 *
 * `reply`, `verdict` (`the-loop gate`) and `resumed` (sent by `sessions resume`) need no
 * capability: they are the operator's
 * (anyone who can open the socket, mode 0600, is the daemon's user), and one sent from inside a
 * session (with a capability) is refused. A capability is never logged.
 *
 * @module
 */
import { join } from "node:path";
import {
  checkSocketPath,
  type ControlResponse,
  type ControlServer,
  controlSocketPath,
  ensureSessionKey,
  serveControl,
  verifyCapability,
} from "../daemon/mod.ts";
import {
  type Dispatcher,
  LAUNCHER_DIR,
  type SessionEnvOptions,
  type VerbRequest,
  type VerbResult,
  type Via,
  writeLauncher,
} from "../dispatch/mod.ts";
import type { EventSink } from "../events/mod.ts";
import { parseWorkItem } from "../state/work_item.ts";

/** What {@linkcode prepareControl} made ready. */
export interface PreparedControl {
  socketPath: string;
  key: Uint8Array;
  /** The dispatch stack's `sessionEnv` (`openDispatch`). */
  sessionEnv: Omit<SessionEnvOptions, "basePath">;
}

/** Step 1 of the module doc. */
export async function prepareControl(
  o: { stateRoot: string; via: Via },
): Promise<PreparedControl> {
  const socketPath = controlSocketPath(o.stateRoot, o.via);
  checkSocketPath(socketPath);
  const key = await ensureSessionKey(o.stateRoot);
  const binDir = join(o.stateRoot, LAUNCHER_DIR);
  await writeLauncher({ binDir });
  return { socketPath, key, sessionEnv: { socketPath, key, binDir } };
}

/** What can run a verb: the sessions dispatcher (`SessionDispatcher.act`). */
type Acting = Dispatcher & {
  act?(req: VerbRequest, opts: { via: Via; signal?: AbortSignal }): Promise<VerbResult>;
};

/** Options of {@linkcode verbHandler}. */
export interface VerbHandlerOptions {
  dispatcher: Acting;
  key: Uint8Array;
  via: Via;
  events: EventSink;
}

const str = (v: unknown): string | undefined => typeof v === "string" ? v : undefined;

/** The request as a verb, or the exit-2 answer saying what is wrong with it. */
export function verbOf(req: Record<string, unknown>): VerbRequest | ControlResponse {
  const bad = (message: string): ControlResponse => ({ exit: 2, message });
  if (req.v !== 1) return bad(`unknown request version ${JSON.stringify(req.v)} (this daemon: 1)`);
  const ref = str(req.ref)?.trim();
  if (!ref) return bad("no work item ref in the request");
  const item = parseWorkItem(ref);
  if (!item) return bad(`not a work item ref: ${JSON.stringify(ref)} (github:OWNER/REPO#N)`);
  const field = (name: string, what: string): string | ControlResponse => {
    const value = str(req[name]);
    return value?.trim() ? value : bad(`${req.verb}: ${what} is empty: nothing was done`);
  };
  switch (req.verb) {
    case "advance": {
      const outcome = field("outcome", "--outcome");
      if (typeof outcome !== "string") return outcome;
      const node = str(req.node)?.trim();
      return { verb: "advance", ref: item.ref, outcome: outcome.trim(), ...(node ? { node } : {}) };
    }
    case "ask": {
      const question = field("question", "--question");
      if (typeof question !== "string") return question;
      const summary = str(req.summary)?.trim();
      return { verb: "ask", ref: item.ref, question, ...(summary ? { summary } : {}) };
    }
    case "reply": {
      const text = field("text", "--text");
      if (typeof text !== "string") return text;
      const actor = field("actor", "--actor");
      if (typeof actor !== "string") return actor;
      return { verb: "reply", ref: item.ref, text, actor: actor.trim() };
    }
    case "verdict": {
      const outcome = field("outcome", "--outcome");
      if (typeof outcome !== "string") return outcome;
      const actor = field("actor", "--actor");
      if (typeof actor !== "string") return actor;
      return { verb: "verdict", ref: item.ref, outcome: outcome.trim(), actor: actor.trim() };
    }
    case "resumed": {
      const suspension = str(req.suspension)?.trim();
      const by = str(req.by)?.trim();
      return {
        verb: "resumed",
        ref: item.ref,
        ...(suspension ? { suspension } : {}),
        ...(by ? { by } : {}),
      };
    }
    default:
      return bad(
        `unknown verb ${JSON.stringify(req.verb)} (advance, ask, reply, verdict, resumed)`,
      );
  }
}

/** The socket's handler: see the module doc. */
export function verbHandler(
  o: VerbHandlerOptions,
): (req: Record<string, unknown>, opts: { signal: AbortSignal }) => Promise<ControlResponse> {
  return async (raw, { signal }) => {
    const req = verbOf(raw);
    if (!("verb" in req)) return req;
    // a reply is a person's: one sent from inside a session (its capability along) is an agent
    // answering a question, its own or another's, and is refused (a resume's too)
    const operator = req.verb === "reply" || req.verb === "verdict" || req.verb === "resumed";
    if (operator && raw.capability !== undefined) {
      o.events.emit("control.verb_refused", {
        verb: req.verb,
        work_item: req.ref,
        via: o.via,
        reason: "from-a-session",
      });
      return {
        exit: 1,
        message: req.verb === "reply"
          ? "reply: an answer is a person's; it cannot be sent from inside a the-loop " +
            "session (run it from your own terminal)"
          : `${req.verb}: an operator's; it cannot be sent from inside a the-loop session`,
      };
    }
    if (!operator && !verifyCapability(o.key, req.ref, raw.capability)) {
      o.events.emit("control.verb_refused", {
        verb: req.verb,
        work_item: req.ref,
        via: o.via,
        reason: typeof raw.capability === "string" && raw.capability ? "mismatch" : "missing",
      });
      return {
        exit: 1,
        message: `${req.verb}: this session may act only on its own work item (${req.ref} is ` +
          "not it); run it from inside that item's session",
      };
    }
    const result: ControlResponse = o.dispatcher.act
      ? await o.dispatcher.act(req, { via: o.via, signal })
      : {
        exit: 1,
        message: "this daemon runs routing.dispatcher: journal, which hosts no sessions; the " +
          "verbs need routing.dispatcher: sessions",
      };
    o.events.emit("control.verb", {
      verb: req.verb,
      work_item: req.ref,
      via: o.via,
      exit: result.exit,
    });
    return result;
  };
}

/** Step 2 of the module doc: the socket served over `dispatcher`. */
export async function serveVerbs(
  o: VerbHandlerOptions & { socketPath: string },
): Promise<ControlServer> {
  return await serveControl({ path: o.socketPath, events: o.events, handle: verbHandler(o) });
}
