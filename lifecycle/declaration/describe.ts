/**
 * The declaration as `the-loop hooks` lists it: JSON-able, and never a secret — a remote's
 * token appears only as its variable's NAME, its headers only by name, a module's `with`
 * options only by key.
 *
 * @module
 */
import type { Declaration, Entry } from "./entry.ts";

/** An entry's time budget in milliseconds. */
export function timeoutMs(entry: Entry): number {
  return Math.round(entry.timeoutSeconds * 1000);
}

/** One listed hook. */
export interface DescribedEntry {
  name: string;
  kind: Entry["kind"];
  target: string;
  /** The declared points, or `"default"` (a module: the methods it defines; others: every point). */
  on: string[] | "default";
  required: boolean;
  enabled: boolean;
  timeoutSeconds: number;
  line?: number;
  col?: number;
  [detail: string]: unknown;
}

/** The declaration for listing: no header values, no token values, no option values. */
export function describeDeclaration(decl: Declaration): DescribedEntry[] {
  return decl.entries.map((e) => {
    const base: DescribedEntry = {
      name: e.name,
      kind: e.kind,
      target: e.target,
      on: e.on ? [...e.on] : "default",
      required: e.required,
      enabled: e.enabled,
      timeoutSeconds: e.timeoutSeconds,
      ...(e.line !== undefined ? { line: e.line, col: e.col } : {}),
    };
    switch (e.kind) {
      case "module":
        return {
          ...base,
          path: e.path,
          ...(e.exportName ? { executor: e.exportName } : {}),
          options: Object.keys(e.options ?? {}),
          permissions: structuredClone(e.permissions),
          isolation: e.isolation,
          maxMemoryMb: e.maxMemoryMb,
        };
      case "remote":
        return {
          ...base,
          url: e.target,
          ...(e.tokenEnv ? { tokenEnv: e.tokenEnv } : {}),
          headers: Object.keys(e.headers),
        };
      case "command":
        return { ...base, argv: [...e.argv], env: [...e.env], maxOutputBytes: e.maxOutputBytes };
    }
  });
}
