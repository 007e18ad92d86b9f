/**
 * Checks that a hook's answer is plain JSON data and returns a clean copy of it. Part of the
 * worker runtime: embedded as text and bundled ahead of the hook.
 *
 * The answer is also MEASURED here, inside the hook's worker, before it is posted to the-loop:
 * its size as JSON, counting a value every time it is referenced (a 16 MiB string referenced 64
 * times is 1 GiB once it crosses to the host, however little memory it takes in the worker).
 * Past {@linkcode ANSWER_MAX_BYTES} the call fails here and nothing large crosses. Each
 * decision's own, smaller cap is checked by the-loop when it applies the answer.
 *
 * @module
 */

/**
 * The cap on a hook's whole answer as JSON, in bytes: 1 MiB. The same value as the contract's
 * `ANSWER_MAX_BYTES` (`lifecycle/sdk/_catalog.ts`; this file imports nothing, a test holds them
 * equal).
 */
export const ANSWER_MAX_BYTES = 1024 * 1024;

// Taken when the runtime loads, before any hook code runs: a hook that replaces Object.keys,
// String.prototype.charCodeAt, Array.prototype.push or a setter on Object.prototype cannot
// shrink the measurement or slip something unmeasured into the copy that is posted.
const uncurry = Function.prototype.bind.bind(Function.prototype.call) as <A extends unknown[], R>(
  fn: (...args: A) => R,
) => (self: unknown, ...args: A) => R;
const codeAt = uncurry(String.prototype.charCodeAt);
const tagOf = uncurry(Object.prototype.toString);
const setHas = uncurry(Set.prototype.has) as (s: Set<object>, v: object) => boolean;
const setAdd = uncurry(Set.prototype.add) as (s: Set<object>, v: object) => Set<object>;
const setDelete = uncurry(Set.prototype.delete) as (s: Set<object>, v: object) => boolean;
const exec = uncurry(RegExp.prototype.exec) as (re: RegExp, s: string) => unknown;
const apply = Reflect.apply;
const keysOf = Object.keys;
const define = Object.defineProperty;
const isArray = Array.isArray;
const isFinite = Number.isFinite;
const stringify = JSON.stringify;
const SetCtor = Set;
const Err = Error;

/** Defines `obj[key] = value` as an own data property (no inherited setter runs). */
function put(obj: object, key: PropertyKey, value: unknown): void {
  const desc = { __proto__: null, value, writable: true, enumerable: true, configurable: true };
  define(obj, key, desc as PropertyDescriptor);
}

/** The answer is over {@linkcode ANSWER_MAX_BYTES}; measured in the worker. */
class AnswerTooLarge extends Error {
  override name = "AnswerTooLarge";
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (isArray(v)) return "an array";
  if (typeof v === "object") {
    const tag = tagOf(v).slice(8, -1);
    return tag === "Object" ? "an object" : `a ${tag}`;
  }
  return `a ${typeof v}`;
}

/** `n` bytes, with its KiB/MiB figure when that reads better. */
function sizeText(n: number): string {
  if (n < 1024) return `${n} bytes`;
  const [unit, div] = n < 1024 * 1024 ? ["KiB", 1024] : ["MiB", 1024 * 1024];
  const v = n / div;
  return `${n} bytes (${Number.isInteger(v) ? v : v.toFixed(1)} ${unit})`;
}

// printable ASCII but `"` and `\`: one byte each as JSON, the common case, checked at once
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** The bytes `s` takes as a JSON string literal (quotes, escapes, UTF-8). */
export function jsonStringBytes(s: string): number {
  if (exec(PLAIN, s) !== null) return s.length + 2;
  let n = 2;
  for (let i = 0; i < s.length; i++) {
    const c = codeAt(s, i);
    if (c === 0x22 || c === 0x5c || c === 0x08 || c === 0x0c || c === 0x0a || c === 0x0d) n += 2;
    else if (c === 0x09) n += 2;
    else if (c < 0x20) n += 6;
    else if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const d = i + 1 < s.length ? codeAt(s, i + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 6; // a lone surrogate: JSON writes \udXXX
    } else if (c >= 0xdc00 && c <= 0xdfff) n += 6;
    else n += 3;
  }
  return n;
}

/** Counts the answer's JSON bytes as it is copied; throws once they pass the cap. */
class Budget {
  used = 0;
  // a field, not a parameter property: the runtime loads with its types stripped, not compiled
  readonly max: number;
  constructor(max: number) {
    this.max = max;
  }

  add(n: number, path: string): void {
    this.used += n;
    if (this.used > this.max) this.#over(path, `the answer has reached ${sizeText(this.used)}`);
  }

  /** A string: one far over the cap is refused by its length, without walking it. */
  addString(s: string, path: string): void {
    if (s.length + 2 > this.max - this.used) {
      // every character is at least one byte: this string alone passes the cap
      const what = s.length > 4 * this.max
        ? `${s.length} characters, at least as many bytes`
        : sizeText(jsonStringBytes(s));
      this.#over(path, `it is a string of ${what} as JSON`);
    }
    const size = jsonStringBytes(s);
    this.used += size;
    if (this.used > this.max) this.#over(path, `it is a string of ${sizeText(size)} as JSON`);
  }

  #over(path: string, what: string): never {
    throw new AnswerTooLarge(
      `the answer is larger than the cap of ${sizeText(this.max)} for a hook's whole answer ` +
        `(as JSON, each reference counted); at ${path} ${what}. Measured in the hook's worker ` +
        `before it was sent to the-loop: nothing was sent. Answer only the decisions, each ` +
        `within its own cap (reason 4 KiB, prompt and text 256 KiB, question 64 KiB, ` +
        `summary 1 KiB)`,
    );
  }
}

function clean(v: unknown, path: string, seen: Set<object>, budget: Budget): unknown {
  if (v === null) return budget.add(4, path), v;
  if (typeof v === "boolean") return budget.add(v ? 4 : 5, path), v;
  if (typeof v === "string") return budget.addString(v, path), v;
  if (typeof v === "number") {
    if (!isFinite(v)) throw new Err(`${path} is ${v}, which JSON cannot carry`);
    budget.add(stringify(v).length, path);
    return v;
  }
  if (typeof v !== "object") throw new Err(`${path} is ${kindOf(v)}`);
  if (setHas(seen, v)) throw new Err(`${path} refers back to itself (a cycle)`);
  const toJSON = (v as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") return clean(apply(toJSON, v, []), path, seen, budget);
  setAdd(seen, v);
  try {
    budget.add(2, path); // [] or {}
    if (isArray(v)) {
      const out: unknown[] = [];
      const n = v.length;
      for (let i = 0; i < n; i++) {
        if (i > 0) budget.add(1, path); // ,
        put(out, i, clean(v[i] ?? null, `${path}[${i}]`, seen, budget));
      }
      return out;
    }
    if (tagOf(v) !== "[object Object]") throw new Err(`${path} is ${kindOf(v)}`);
    const out: Record<string, unknown> = {};
    let first = true;
    const keys = keysOf(v);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      const x = (v as Record<string, unknown>)[k];
      if (x === undefined) continue;
      const at = `${path}.${k}`;
      budget.add(first ? 1 : 2, at); // : and ,
      budget.addString(k, at);
      first = false;
      put(out, k, clean(x, at, seen, budget));
    }
    return out;
  } finally {
    setDelete(seen, v);
  }
}

/**
 * A hook's return value as the host receives it: `undefined`/`null` → `null`, an object →
 * its plain JSON copy. Anything else (a function, a symbol, a Map, a number) throws, naming the
 * offending path, e.g. `answer.notify is a function`; so does an answer over `maxBytes`
 * (default {@linkcode ANSWER_MAX_BYTES}) as JSON, naming where it passed the cap.
 */
export function checkAnswer(
  value: unknown,
  maxBytes: number = ANSWER_MAX_BYTES,
): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "object" || isArray(value)) {
    throw new Err(`answer must be null or an object of decisions, got ${kindOf(value)}`);
  }
  try {
    const seen = new SetCtor<object>();
    return clean(value, "answer", seen, new Budget(maxBytes)) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof AnswerTooLarge) throw new Err(err.message);
    throw new Err(`${(err as Error).message}; a hook must answer plain JSON data`);
  }
}
