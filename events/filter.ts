/**
 * What `the-loop events` filters on, parsed from flag text: fnmatch type patterns, a minimum
 * level, a `--since` time, and field matches. Bad flag text throws {@linkcode UsageError}.
 *
 * @module
 */
import { UsageError } from "../errors.ts";
import { type Level, LEVELS } from "./catalog.ts";
import type { EventRecord } from "./record.ts";

/** Which records a query keeps; every given criterion must hold. */
export interface EventFilter {
  /** fnmatch patterns (`*`, `?`, `[...]`); a record matching any of them is kept. */
  types?: string[];
  /**
   * The record's `work_item` (a ref, or an object with `ref`) or `endpoint` equals this, after
   * {@linkcode normalizeWorkItemRef} on both sides (`acme/app#12` finds `github:acme/app#12`).
   */
  workItem?: string;
  /** The record's `delivery_id` equals this. */
  deliveryId?: string;
  /** The record's `source` equals this. */
  source?: string;
  /** At least this level. */
  level?: Level;
  /** Not before this time (epoch milliseconds). */
  since?: number;
}

/** Is the filter empty (every record matches)? */
export function isEmptyFilter(f: EventFilter): boolean {
  return !f.types?.length && f.workItem === undefined && f.deliveryId === undefined &&
    f.source === undefined && f.level === undefined && f.since === undefined;
}

/** Turns an fnmatch pattern into an anchored RegExp: `*` any run, `?` one char, `[...]` a set. */
export function fnmatchToRegExp(pattern: string): RegExp {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "*") out += ".*";
    else if (c === "?") out += ".";
    else if (c === "[") {
      let j = i + 1;
      if (pattern[j] === "!" || pattern[j] === "^") j++;
      if (pattern[j] === "]") j++;
      while (j < pattern.length && pattern[j] !== "]") j++;
      if (j >= pattern.length) {
        out += "\\[";
        continue;
      }
      let body = pattern.slice(i + 1, j).replace(/[\\\]]/g, "\\$&");
      if (body[0] === "!" || body[0] === "^") body = "^" + body.slice(1);
      out += `[${body}]`;
      i = j;
    } else out += c.replace(/[.+^${}()|\\\]]/g, "\\$&");
  }
  return new RegExp(`^${out}$`, "s");
}

/** Parses `--level`; throws {@linkcode UsageError} on an unknown level. */
export function parseLevel(text: string): Level {
  const level = text.toLowerCase() === "warn" ? "warning" : text.toLowerCase();
  if (!LEVELS.includes(level as Level)) {
    throw new UsageError(`--level: unknown level '${text}'; use one of ${LEVELS.join(", ")}`);
  }
  return level as Level;
}

const UNIT_MS: Record<string, number> = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 604800e3 };

/**
 * Parses `--since`: a duration back from `now` (`30s`, `15m`, `2h`, `1d`, `1w`) or an ISO-8601
 * date or time (`2026-07-22`, `2026-07-22T10:00:00Z`; without an offset it is read as UTC, like
 * the log's timestamps). Returns epoch milliseconds.
 */
export function parseSince(text: string, now = Date.now()): number {
  const rel = /^(\d+)\s*([smhdw])$/.exec(text.trim());
  if (rel) return now - Number(rel[1]) * UNIT_MS[rel[2]];
  let iso = text.trim();
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(iso)) iso += "Z";
  const ms = /^\d{4}-\d{2}-\d{2}/.test(iso) ? Date.parse(iso.replace(" ", "T")) : NaN;
  if (Number.isNaN(ms)) {
    throw new UsageError(
      `--since: cannot read '${text}'; use a duration such as 30s, 15m, 2h, 1d ` +
        "or an ISO-8601 time such as 2026-07-22T10:00:00Z",
    );
  }
  return ms;
}

/** `[HOST[:PORT]/]OWNER/REPO#N` without a provider prefix (as lifecycle/work_item.ts spells it). */
const BARE_REF =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::\d{1,5})?\/)?[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?\/[A-Za-z0-9._-]+#[1-9]\d*$/;

/**
 * The canonical form of a work item ref as the engine writes it: `owner/repo#12` and
 * `host/owner/repo#12` gain the `github:` prefix; anything else (already prefixed, `issue-7`, an
 * endpoint) is returned as is.
 */
export function normalizeWorkItemRef(ref: string): string {
  return BARE_REF.test(ref) ? `github:${ref}` : ref;
}

function refOf(value: unknown): unknown {
  return value !== null && typeof value === "object" ? (value as { ref?: unknown }).ref : value;
}

/** Compiles `f` into a predicate. */
export function compileFilter(f: EventFilter): (r: EventRecord) => boolean {
  const types = f.types?.length ? f.types.map(fnmatchToRegExp) : undefined;
  const minLevel = f.level ? LEVELS.indexOf(f.level) : -1;
  const wantRef = f.workItem === undefined ? undefined : normalizeWorkItemRef(f.workItem);
  const isWanted = (value: unknown) => {
    const ref = refOf(value);
    return ref === wantRef || (typeof ref === "string" && normalizeWorkItemRef(ref) === wantRef);
  };
  return (r) => {
    if (types && !(typeof r.event === "string" && types.some((t) => t.test(r.event)))) return false;
    if (f.source !== undefined && r.source !== f.source) return false;
    if (minLevel > 0 && LEVELS.indexOf(r.level) < minLevel) return false;
    if (f.deliveryId !== undefined && r.delivery_id !== f.deliveryId) return false;
    if (wantRef !== undefined && !isWanted(r.work_item) && !isWanted(r.endpoint)) return false;
    if (f.since !== undefined && !(Date.parse(r.ts) >= f.since)) return false;
    return true;
  };
}

/**
 * The value of top-level string field `key` read straight from a line the way the-loop writes
 * it (`{"ts":"…","source":"…","event":"…",…`), without parsing; undefined whenever that is not
 * certain (other spacing, escapes, a nested object before it), so the caller parses instead.
 */
export function peekField(line: string, key: string): string | undefined {
  if (line.charCodeAt(0) !== 123 /* { */) return undefined;
  const needle = `"${key}":"`;
  const i = line.indexOf(needle);
  if (i < 1) return undefined;
  const before = line.charCodeAt(i - 1);
  if (before !== 44 /* , */ && before !== 123) return undefined;
  const nested = line.indexOf("{", 1);
  if (nested !== -1 && nested < i) return undefined;
  const start = i + needle.length;
  const end = line.indexOf('"', start);
  if (end < 0) return undefined;
  const value = line.slice(start, end);
  return value.includes("\\") ? undefined : value;
}

/**
 * A cheap pre-check on the raw line: false only when the line certainly fails the filter's
 * `types`, `source` or `level` (so it need not be parsed); true means "parse and check".
 */
export function compileLineCheck(f: EventFilter): (line: string) => boolean {
  const types = f.types?.length ? f.types.map(fnmatchToRegExp) : undefined;
  const minLevel = f.level ? LEVELS.indexOf(f.level) : 0;
  if (!types && f.source === undefined && minLevel <= 0) return () => true;
  return (line) => {
    if (types) {
      const event = peekField(line, "event");
      if (event !== undefined && !types.some((t) => t.test(event))) return false;
    }
    if (f.source !== undefined) {
      const source = peekField(line, "source");
      if (source !== undefined && source !== f.source) return false;
    }
    if (minLevel > 0) {
      const level = peekField(line, "level");
      if (level !== undefined && LEVELS.indexOf(level as Level) < minLevel) return false;
    }
    return true;
  };
}
