/**
 * Catalog entries of the events both daemons share (merged into {@linkcode EVENT_TYPES} by
 * `catalog.ts`).
 *
 * @module
 */
import type { EventType } from "./_event_type.ts";

/** The shared daemon event types. */
export const DAEMON_EVENTS: Record<string, EventType> = {
  "config.reloaded": {
    description:
      "The config file changed while a daemon ran and the new content was taken; the next cycle or event uses it.",
    level: "info",
    fields: {
      path: "string — the config file",
      hash: "string — the first 16 hex digits of the new content's SHA-256",
      changed: "string[] — the top-level sections whose resolved values changed",
    },
  },
  "config.reload_failed": {
    description:
      "The config file changed but the new content is invalid or unreadable (or its loops do not read): the daemon keeps the previous config. Said once per broken content.",
    level: "error",
    fields: {
      path: "string — the config file",
      problems: "string[] — every problem, as file:line:col: path: message (tokens masked)",
    },
  },
};
