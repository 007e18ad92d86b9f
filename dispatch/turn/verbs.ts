/**
 * The verbs the control endpoint hands the dispatcher (`advance`, `ask`, `reply`, `verdict`,
 * `resumed`),
 * each run as its work item's turn: in the item's queue, after its earlier events.
 *
 * @module
 */
import type { WorkItemRef } from "../../state/work_item.ts";
import type { RoutedEvent, VerbRequest, VerbResult, Via } from "../types.ts";
import type { Turn } from "./turn.ts";
import { claim, gateVerdict, resumedLoop } from "./_loop.ts";
import { askQuestion, reply } from "./_ask.ts";
import { resumeSuspension } from "./suspend.ts";

/** The turn's event for a verb: no payload, no subject; `verb-<uuid>` its delivery id. */
export function verbEvent(
  req: VerbRequest,
  o: { item: WorkItemRef; via: Via; deliveryId: string },
): RoutedEvent {
  return {
    workItem: o.item,
    kind: "item",
    ghEvent: `the-loop ${req.verb}`,
    action: "",
    deliveryId: o.deliveryId,
    via: o.via,
    actor: req.verb === "reply" || req.verb === "verdict" ? req.actor : null,
    labeled: false,
    text: "",
    repository: "",
  };
}

/** Does `req` in `turn` (whose event is {@linkcode verbEvent}'s). */
export async function act(turn: Turn, req: VerbRequest): Promise<VerbResult> {
  switch (req.verb) {
    case "advance":
      return await claim(turn, req);
    case "ask":
      return await askQuestion(turn, req);
    case "reply":
      return await reply(turn, req);
    case "verdict":
      return await gateVerdict(turn, req);
    case "resumed":
      return await retell(turn, req);
  }
}

/**
 * `resumed`: the CLI's `sessions resume` resumed a parked item's position (the daemon's files);
 * the live session's agent is given its node's assignment again (after what the park held
 * back). Nothing to tell is a no-op, exit 0, saying why.
 */
async function retell(
  turn: Turn,
  req: Extract<VerbRequest, { verb: "resumed" }>,
): Promise<VerbResult> {
  // `hooks resume` marked the item's suspension resumed (or named it: a hold written as it was
  // marking may have lost the mark): its held deliveries go now
  const suspended = await turn.deps.suspensions?.ofItem(turn.ref).catch(() => undefined);
  if (suspended && (suspended.resumed || suspended.id === req.suspension)) {
    const by = suspended.resumed?.by ?? req.by ?? "the operator";
    await resumeSuspension(turn, suspended, { by });
    const n = suspended.held.length;
    return {
      exit: 0,
      message: `${suspended.id} resumed: ${n} held ${
        n === 1 ? "delivery follows" : "deliveries follow"
      }`,
    };
  }
  let live;
  try {
    live = await turn.deps.sessions.live(turn.ref);
  } catch { /* read as none */ }
  if (live?.status !== "active") {
    return {
      exit: 0,
      message: `${turn.ref} has no running session: its next spawn's prompt gives the assignment`,
    };
  }
  if (await resumedLoop(turn, live)) {
    return { exit: 0, message: `the agent of ${turn.ref} was given its assignment again` };
  }
  return { exit: 0, message: `${turn.ref} stands at no agent node: nothing to tell its agent` };
}
