/**
 * Friendly wording for schema rules and values, and "did you mean" suggestions, so a problem
 * reads `must be an integer ≥ 1 (got "sixty")` rather than ajv's `must be integer`.
 *
 * @module
 */
import { plural } from "../errors.ts";
import { maskTokens } from "./_secrets.ts";

/** A JSON Schema node, loosely typed. */
// deno-lint-ignore no-explicit-any
export type SchemaNode = Record<string, any>;

function range(s: SchemaNode): string {
  const min = s.minimum, max = s.maximum;
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` ≥ ${min}`;
  if (s.exclusiveMinimum !== undefined) return ` > ${s.exclusiveMinimum}`;
  if (max !== undefined) return ` ≤ ${max}`;
  return "";
}

/**
 * What a value must be, e.g. `an integer ≥ 1`, `one of: a, b`, `true or a list of strings`; a node's
 * own `x-describe` wording when it has one (a pattern reads better in words).
 */
export function describeSchema(s: SchemaNode): string {
  if (typeof s["x-describe"] === "string") return s["x-describe"];
  if (Array.isArray(s.anyOf)) return s.anyOf.map(describeSchema).join(" or ");
  if ("const" in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) {
    return `one of: ${s.enum.map((v: unknown) => (v === "" ? '""' : String(v))).join(", ")}`;
  }
  switch (s.type) {
    case "integer":
      return `an integer${range(s)}`;
    case "number":
      return `a number${range(s)}`;
    case "boolean":
      return "true or false";
    case "string":
      if (s.pattern) return `a string matching /${s.pattern}/`;
      return s.minLength ? "a non-empty string" : "a string";
    case "array": {
      const of = s.items?.type === "string" ? " of strings" : "";
      const least = s.minItems ? ` with at least ${plural(s.minItems, "item")}` : "";
      return `a list${of}${least}`;
    }
    case "object":
      return s.additionalProperties?.type === "string" ? "a mapping of strings" : "a mapping";
    default:
      return "a valid value";
  }
}

/** Is `v` a mapping (a YAML map, a JSON object): not null, not a list? */
export function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Options for {@linkcode showValue}. */
export interface ShowValueOptions {
  /**
   * How a list or mapping is shown: `"kind"` (default) names it, `a list` or `a mapping`;
   * `"json"` quotes it as JSON, shortened (the hooks declaration: `(got {"name":"a"})`).
   */
  structures?: "kind" | "json";
}

const SHOWN_CHARS = 40;

function shorten(text: string): string {
  return text.length > SHOWN_CHARS ? text.slice(0, SHOWN_CHARS - 3) + "..." : text;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * A value the user wrote as an error message quotes it, for `(got …)`: `nothing` (null or
 * absent), a string in quotes, a number or boolean as written, a list or mapping as
 * {@linkcode ShowValueOptions.structures} says. Tokens in it are masked before it is shortened
 * (which could cut a token below its masked shape); at most 40 characters of it are shown.
 */
export function showValue(value: unknown, opts: ShowValueOptions = {}): string {
  if (value === null || value === undefined) return "nothing";
  if (typeof value === "string") return JSON.stringify(shorten(maskTokens(value)));
  if (typeof value !== "object") return String(value);
  if (opts.structures === "json") return shorten(maskTokens(json(value)));
  return Array.isArray(value) ? "a list" : "a mapping";
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length];
}

// A key written without its unit (`timeout` for `timeoutSeconds`) or with another one
// (`timeoutMs`) is the same key: suggested before any merely close spelling.
const UNITS = "Seconds?|Secs?|Ms|Millis|Milliseconds?|Minutes?|Mins?|Hours?|Days?|Bytes?|" +
  "KiB|Kb|KB|MiB|Mb|MB|GiB|Gb|GB";
// a unit after a camelCase boundary (`timeoutMs`) or a `_`/`-` (`timeout_ms`)
const UNIT_SUFFIX = new RegExp(`(?:(?<=[a-z0-9])(?:${UNITS})|[_-](?:${UNITS.toLowerCase()}))$`);

function stem(name: string): string {
  return name.replace(UNIT_SUFFIX, "").toLowerCase();
}

/**
 * The known name closest to `name`, when it is close enough to be a likely typo, or when the
 * two differ only by a unit suffix (`timeout` → `timeoutSeconds`, `maxMb` → `maxBytes`).
 */
export function didYouMean(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const k of known) {
    const score = k.toLowerCase() === name.toLowerCase()
      ? 0
      : k !== name && stem(k) === stem(name) && stem(k).length >= 3
      ? 0.5
      : distance(name, k);
    if (score < bestScore) [best, bestScore] = [k, score];
  }
  const limit = Math.max(2, Math.floor(name.length / 3));
  return bestScore <= limit ? best : undefined;
}
