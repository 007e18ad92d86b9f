/**
 * Where an open circuit is written so that one-shot commands see what a daemon saw: one small
 * JSON file per hook, `<state.root>/hooks/circuits/<name>.json`, written atomically when the
 * daemon's circuit for that hook opens (or opens again) and removed when it closes. `the-loop
 * hooks` and `hooks validate` read it; `the-loop hooks reset <name>` removes it, and the daemon,
 * which looks for the file before skipping a call, then lets its next call through as a probe.
 * With several daemons, the file holds the latest change any of them made (each names its pid).
 *
 * @module
 */
import { join } from "node:path";
import { writeFileAtomic } from "../state/atomic.ts";
import type { ExecutorKind } from "./executor.ts";

/** One open circuit, as the file holds it. */
export interface CircuitRecord {
  hook: string;
  state: "open";
  kind: ExecutorKind;
  /** A required hook's operations are refused while it is open. */
  required: boolean;
  /** UTC ISO-8601: when it opened. */
  opened_at: string;
  /** UTC ISO-8601: after this, one probe call is let through. */
  retry_at: string;
  /** Failures in a row: those that opened it, plus any failed probes since. */
  failures: number;
  /** The last failure, redacted, first line. */
  last_error: string;
  /** It opened again because a probe failed. */
  reopened: boolean;
  /** The process whose circuit it is. */
  pid: number;
}

/** Where a runner keeps its open circuits. */
export interface CircuitStore {
  /** The hook's open circuit, if one is recorded. */
  read(hook: string): Promise<CircuitRecord | undefined>;
  write(record: CircuitRecord): Promise<void>;
  /** Forgets the hook's circuit; true when one was recorded. */
  remove(hook: string): Promise<boolean>;
}

/** The folder of the circuit files under a state root. */
export function circuitsDir(stateRoot: string): string {
  return join(stateRoot, "hooks", "circuits");
}

/** Reads and writes `<state.root>/hooks/circuits/<hook>.json`. */
export class FileCircuitStore implements CircuitStore {
  readonly dir: string;

  constructor(stateRoot: string) {
    this.dir = circuitsDir(stateRoot);
  }

  /** The file a hook's circuit is kept in (throws for a name no declaration allows). */
  path(hook: string): string {
    // declaration names are [a-z][a-z0-9-]*; anything else cannot name a file here
    if (!/^[a-z][a-z0-9-]*$/.test(hook)) {
      throw new Error(`not a hook name: ${JSON.stringify(hook)}`);
    }
    return join(this.dir, `${hook}.json`);
  }

  async read(hook: string): Promise<CircuitRecord | undefined> {
    let text: string;
    try {
      text = await Deno.readTextFile(this.path(hook));
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return undefined;
      throw err;
    }
    return parseRecord(text, hook);
  }

  async write(record: CircuitRecord): Promise<void> {
    await writeFileAtomic(this.path(record.hook), JSON.stringify(record, null, 2) + "\n", {
      mode: 0o600,
    });
  }

  async remove(hook: string): Promise<boolean> {
    try {
      await Deno.remove(this.path(hook));
      return true;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return false;
      throw err;
    }
  }
}

/**
 * A circuit file's record. A file that is not one (hand-edited, truncated by a full disk) still
 * reads as open — that is what its presence says — with `last_error` saying it is unreadable.
 */
function parseRecord(text: string, hook: string): CircuitRecord {
  let v: Partial<CircuitRecord> = {};
  try {
    const parsed = JSON.parse(text);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) v = parsed;
  } catch { /* below */ }
  const str = (x: unknown) => (typeof x === "string" ? x : "");
  const ok = typeof v.opened_at === "string" && typeof v.retry_at === "string";
  return {
    hook,
    state: "open",
    kind: v.kind === "remote" || v.kind === "command" ? v.kind : "module",
    required: v.required === true,
    opened_at: str(v.opened_at),
    retry_at: str(v.retry_at),
    failures: typeof v.failures === "number" ? v.failures : 0,
    last_error: ok ? str(v.last_error) : "the circuit file is unreadable; reset it",
    reopened: v.reopened === true,
    pid: typeof v.pid === "number" ? v.pid : 0,
  };
}

/**
 * Is process `pid` running? Asks `ps` (Deno refuses `/proc` to anything short of
 * `--allow-all`, and a signal, even 0, is not for a reader to send); `undefined` when `ps`
 * cannot answer.
 */
export async function processRunning(pid: number): Promise<boolean | undefined> {
  if (!(pid > 0) || Deno.build.os === "windows") return undefined;
  try {
    const out = await new Deno.Command("ps", {
      args: ["-p", String(pid), "-o", "pid="],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    const listed = new TextDecoder().decode(out.stdout).trim() === String(pid);
    return out.success ? listed : out.code === 1 && !listed ? false : undefined;
  } catch {
    return undefined;
  }
}
