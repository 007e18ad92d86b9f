/**
 * The structured event log: every decision the daemon makes is appended as one JSON object per
 * line (`ts`, `source`, `event`, `level`, `pid` and the type's fields, see `catalog.ts`).
 *
 * Writing:
 * ```ts
 * const log = new EventLog({ path: config.eventLog.path, source: "hooks", enabled: config.eventLog.enabled });
 * log.emit("hooks.loaded", { count: 2, names: ["a", "b"] });
 * ```
 * Tests hand code a {@linkcode MemorySink} instead and assert on `sink.records`.
 *
 * Reading: {@linkcode queryEvents} and {@linkcode followEvents} (used by `the-loop events`).
 *
 * @module
 */
export {
  COMMON_FIELDS,
  defaultLevel,
  EVENT_TYPES,
  type EventType,
  isCatalogued,
  LEVELS,
} from "./catalog.ts";
export type { Level } from "./catalog.ts";
export { emitAll, type EventRecord, type EventSink, type PendingEvent } from "./record.ts";
export { EventLog, type EventLogOptions, type EventLogSettings } from "./log.ts";
export { MemorySink, type MemorySinkOptions, NULL_SINK } from "./sinks.ts";
export { isSecretKey, maskTokens, REDACTED } from "./scrub.ts";
export { type EventFilter, normalizeWorkItemRef, parseLevel, parseSince } from "./filter.ts";
export { MAX_LINE_BYTES, type OversizedLine } from "./lines.ts";
export { queryEvents, type QueryOptions, type QueryResult } from "./query.ts";
export { followEvents, type FollowOptions } from "./follow.ts";
export {
  catalogMarkdown,
  catalogText,
  TABLE_HEADERS,
  tableRow,
  TableStream,
  type TableStreamOptions,
} from "./format.ts";
