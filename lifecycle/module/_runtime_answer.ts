/**
 * Checks that a hook's answer is plain JSON data and returns a clean copy of it. Part of the
 * worker runtime: embedded as text and bundled ahead of the hook.
 *
 * @module
 */

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") {
    const tag = Object.prototype.toString.call(v).slice(8, -1);
    return tag === "Object" ? "an object" : `a ${tag}`;
  }
  return `a ${typeof v}`;
}

function clean(v: unknown, path: string, seen: Set<object>): unknown {
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "number") {
    if (Number.isFinite(v)) return v;
    throw new Error(`${path} is ${v}, which JSON cannot carry`);
  }
  if (typeof v !== "object") throw new Error(`${path} is ${kindOf(v)}`);
  if (seen.has(v)) throw new Error(`${path} refers back to itself (a cycle)`);
  const toJSON = (v as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") return clean(toJSON.call(v), path, seen);
  seen.add(v);
  try {
    if (Array.isArray(v)) return v.map((x, i) => clean(x ?? null, `${path}[${i}]`, seen));
    if (Object.prototype.toString.call(v) !== "[object Object]") {
      throw new Error(`${path} is ${kindOf(v)}`);
    }
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (x !== undefined) out[k] = clean(x, `${path}.${k}`, seen);
    }
    return out;
  } finally {
    seen.delete(v);
  }
}

/**
 * A hook's return value as the host receives it: `undefined`/`null` → `null`, an object →
 * its plain JSON copy. Anything else (a function, a symbol, a Map, a number) throws, naming the
 * offending path, e.g. `answer.notify is a function`.
 */
export function checkAnswer(value: unknown): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new Error(`answer must be null or an object of decisions, got ${kindOf(value)}`);
  }
  try {
    return clean(value, "answer", new Set()) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`${(err as Error).message}; a hook must answer plain JSON data`);
  }
}
