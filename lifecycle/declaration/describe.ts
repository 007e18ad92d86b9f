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
  /** `onError === "block"`, kept for the listings that read it. */
  required: boolean;
  /** What its failure does: warn, block or suspend. */
  onError: Entry["onError"];
  /** With suspend: how the park ends. */
  suspendMode?: Entry["suspendMode"];
  /** With retry_backoff: the waits before each retry, in ms. */
  retryBackoffMs?: number[];
  /** With suspend, when set: minutes before a park is escalated. */
  suspendTimeoutMinutes?: number;
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
      onError: e.onError,
      ...(e.suspendMode !== undefined ? { suspendMode: e.suspendMode } : {}),
      ...(e.retryBackoffMs !== undefined ? { retryBackoffMs: [...e.retryBackoffMs] } : {}),
      ...(e.suspendTimeoutMinutes !== undefined
        ? { suspendTimeoutMinutes: e.suspendTimeoutMinutes }
        : {}),
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
