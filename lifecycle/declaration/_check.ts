/**
 * The declaration parser's bookkeeping: collects every problem with its key path and the
 * `file:line:col` the config loader's `locate` gives, and the small type checks every key uses.
 * Token-shaped text is masked in every problem (its key path and message) as it is recorded, and
 * a token given where a variable's NAME belongs is refused.
 *
 * @module
 */
import { looksLikeToken, maskProblem, tokenNotName } from "../../config/secrets.ts";
import {
  didYouMean,
  formatKeyPath,
  type KeyPath,
  type Position,
  showValue,
} from "../../config/mod.ts";
import type { Problem } from "../../errors.ts";

/** Finds a key path's line and column in the config file, when it is there. */
export type Locate = (keyPath: KeyPath) => Position | undefined;

/**
 * A value as a declaration problem quotes it: the config's {@linkcode showValue}, a list or
 * mapping quoted as JSON (`(got {"name":"a"})`), tokens masked, shortened.
 */
export function show(value: unknown): string {
  return showValue(value, { structures: "json" });
}

/** Collects problems, located as precisely as the config loader allows. */
export class Collector {
  readonly problems: Problem[] = [];
  readonly #file?: string;
  readonly #locate?: Locate;

  constructor(opts: { file?: string; locate?: Locate }) {
    this.#file = opts.file;
    this.#locate = opts.locate;
  }

  /** Where `keyPath` is, or its nearest located ancestor. */
  where(keyPath: KeyPath): Position | undefined {
    if (!this.#locate) return undefined;
    for (let n = keyPath.length; n > 0; n--) {
      const at = this.#locate(keyPath.slice(0, n));
      if (at) return at;
    }
    return undefined;
  }

  /** Records a problem at `keyPath`; `hook` names the entry it belongs to. */
  add(keyPath: KeyPath, message: string, hook?: string): void {
    const at = this.where(keyPath);
    this.problems.push(maskProblem({
      ...(this.#file !== undefined ? { file: this.#file } : {}),
      ...(at ? { line: at.line, col: at.col } : {}),
      path: formatKeyPath(keyPath),
      message: hook ? `hook "${hook}": ${message}` : message,
    }));
  }
}

/** An environment variable's name (the only thing the config ever holds about a secret). */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Is `v` a pasted token rather than a variable's name? (Then say so, never echoing it.) */
export function isTokenNotName(v: unknown): v is string {
  return typeof v === "string" && looksLikeToken(v);
}

/** The checks of one entry: reports under `hooks[i]`, naming the entry. */
export class EntryCheck {
  constructor(
    readonly c: Collector,
    readonly at: KeyPath,
    readonly raw: Record<string, unknown>,
    readonly hook?: string,
  ) {}

  /** Reports a problem at `hooks[i].<sub...>`. */
  err(sub: KeyPath, message: string): void {
    this.c.add([...this.at, ...sub], message, this.hook);
  }

  /** A boolean key, or `dflt` when absent. */
  bool(key: string, dflt: boolean): boolean {
    const v = this.raw[key];
    if (v === undefined) return dflt;
    if (typeof v === "boolean") return v;
    this.err([key], `must be true or false (got ${show(v)})`);
    return dflt;
  }

  /**
   * A key whose value is one of `values`: the value, or undefined when absent or another (the
   * problem names the values, and the nearest one when it looks misspelt).
   */
  choice<T extends string>(key: string, values: readonly T[]): T | undefined {
    const v = this.raw[key];
    if (v === undefined) return undefined;
    if (typeof v === "string" && (values as readonly string[]).includes(v)) return v as T;
    const guess = typeof v === "string" ? didYouMean(v, [...values]) : undefined;
    this.err(
      [key],
      `must be one of ${values.join(", ")} (got ${show(v)}${
        guess ? `; did you mean "${guess}"?` : ""
      })`,
    );
    return undefined;
  }

  /**
   * A string key (non-empty), or undefined when absent or wrong; `envName` refuses a value that
   * looks like a token (the key holds a variable's NAME).
   */
  str(
    key: string,
    opts: { pattern?: RegExp; what?: string; envName?: boolean } = {},
  ): string | undefined {
    const v = this.raw[key];
    if (v === undefined) return undefined;
    if (typeof v !== "string" || v === "") {
      this.err([key], `must be a non-empty string (got ${show(v)})`);
      return undefined;
    }
    if (opts.envName && isTokenNotName(v)) {
      this.err([key], tokenNotName());
      return undefined;
    }
    if (opts.pattern && !opts.pattern.test(v)) {
      this.err(
        [key],
        `must be ${opts.what ?? `a string matching ${opts.pattern}`} (got ${show(v)})`,
      );
      return undefined;
    }
    return v;
  }

  /**
   * A number key: finite, > 0 and ≤ `max` when given (`integer` demands a whole number ≥ `min`,
   * default 1).
   */
  positive(
    key: string,
    dflt: number,
    opts: { integer?: boolean; min?: number; max?: number; unit?: string } = {},
  ): number {
    const v = this.raw[key];
    if (v === undefined) return dflt;
    const min = opts.min ?? 1;
    const ok = typeof v === "number" && Number.isFinite(v) && v > 0 &&
      (!opts.integer || (Number.isInteger(v) && v >= min)) &&
      (opts.max === undefined || v <= opts.max);
    if (ok) return v as number;
    const what = (opts.integer ? `a whole number ≥ ${min}` : "a number > 0") +
      (opts.max !== undefined ? ` and ≤ ${opts.max}` : "");
    this.err([key], `must be ${what}${opts.unit ? ` (${opts.unit})` : ""} (got ${show(v)})`);
    return dflt;
  }

  /**
   * A list of strings each matching `pattern`; undefined when absent or wrong; `envNames`
   * refuses an item that looks like a token (the items are variables' NAMES).
   */
  names(
    key: string,
    pattern: RegExp,
    what: string,
    opts: { envNames?: boolean } = {},
  ): string[] | undefined {
    const v = this.raw[key];
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) {
      this.err([key], `must be a list of strings, each ${what} (got ${show(v)})`);
      return undefined;
    }
    let ok = true;
    v.forEach((item, i) => {
      if (opts.envNames && isTokenNotName(item)) {
        this.err([key, i], tokenNotName());
        ok = false;
      } else if (typeof item !== "string" || !pattern.test(item)) {
        this.err([key, i], `must be ${what} (got ${show(item)})`);
        ok = false;
      }
    });
    return ok ? v as string[] : undefined;
  }
}
