/**
 * The lifecycle gate in front of every control command: `input_received` (kind `command`), asked
 * after the allowlist check and before any control handler runs. A hook answering
 * `proceed: false` refuses the command: `control.rejected` {reason: input-refused, detail: the
 * hook's reason} is logged and nothing is applied or recorded. The engine's `run` never throws:
 * an unconfigured process (no hooks) always proceeds.
 *
 * @module
 */
import type { EventSink } from "../../events/mod.ts";
import * as engine from "../../lifecycle/mod.ts";
import { makeContext, workItemFromRef } from "../../lifecycle/sdk/mod.ts";
import type { ControlCommand } from "../../state/control.ts";
import type { WorkItemRef } from "../../state/work_item.ts";
import type { ControlOrigin } from "../seams.ts";

/** What {@linkcode admitControl} asks about. */
export interface AdmitInput {
  command: ControlCommand;
  item: WorkItemRef;
  origin: ControlOrigin;
  /** The GitHub event the command came in (`issue_comment`, …); `""` for a verb. */
  event?: string;
  /** The loop the item walks; `""` when unknown. */
  loop?: string;
  events: EventSink;
}

/** The gate's verdict. */
export type Admission = { proceed: true } | { proceed: false; reason: string };

/** Asks the `input_received` hooks whether `command` may proceed. */
export async function admitControl(input: AdmitInput): Promise<Admission> {
  const workItem = workItemFromRef(input.item.ref);
  const ctx = await engine.run(
    "input_received",
    makeContext("input_received", {
      work_item: workItem,
      endpoint: workItem,
      kind: "command",
      actor: input.origin.actor,
      source: input.origin.source === "cli" ? "verb" : "comment",
      command: input.command,
      event: input.event ?? "",
      loop: input.loop ?? "",
      text: "",
    }),
  );
  if (ctx.proceed !== false) return { proceed: true };
  const reason = ctx.reason || "an input_received hook refused it";
  input.events.emit("control.rejected", {
    work_item: input.item.ref,
    command: input.command,
    reason: "input-refused",
    origin: input.origin.source,
    actor: input.origin.actor,
    recorded: false,
    detail: reason,
  });
  return { proceed: false, reason };
}
