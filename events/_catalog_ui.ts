/**
 * The status page's event types (`ui/`, `docs/ui.md`).
 *
 * @module
 */
import type { EventType } from "./_event_type.ts";

/** The `ui.*` events. */
export const UI_EVENTS: Record<string, EventType> = {
  "ui.started": {
    description: "The status page listens (a daemon's, or `the-loop ui`'s).",
    level: "info",
    fields: {
      url: "string — where it is served, e.g. http://127.0.0.1:8788/",
      exposed: "boolean — true when it is served beyond loopback (every request needs the token)",
      terminal: "string — off | read-only | interactive (ui.terminal)",
    },
  },
  "ui.failed": {
    description:
      "The status page could not be started (its port in use, a host it may not bind): the daemon goes on without it.",
    level: "warning",
    fields: {
      host: "string — the host it was to bind",
      port: "number — the port it was to listen on",
      error: "string — why, and what to do",
    },
  },
  "ui.control": {
    description:
      "A control was sent from the status page (reply, verdict, pause, resume, stop, resume-suspension); what it did is in its verb's own events.",
    level: "info",
    fields: {
      action: "string — reply | verdict | pause | resume | stop | resume-suspension",
      work_item: "string — the work item it acted on (absent for resume-suspension)",
      suspension: "string — resume-suspension: the suspension's id",
      ok: "boolean — the verb did it (its exit code 0)",
    },
  },
};
