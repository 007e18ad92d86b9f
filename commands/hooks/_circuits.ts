/**
 * The hooks' circuits as a one-shot command sees them: what the daemons recorded under
 * `<state.root>/hooks/circuits/` (`lifecycle/circuit_store.ts`). A daemon writes a hook's file
 * when its circuit opens and removes it when it closes, so no file means closed. Shared by
 * `the-loop hooks`, `hooks validate` and `hooks reset`.
 *
 * @module
 */
import { messageOf, plural } from "../../errors.ts";
import { type CircuitRecord, FileCircuitStore, processRunning } from "../../lifecycle/mod.ts";

/** One hook's circuit, as `--format json` prints it. */
export type CircuitView =
  | { state: "closed" }
  | (CircuitRecord & {
    /** Is the daemon that opened it still running? null where that cannot be told. */
    pid_running: boolean | null;
    /** The file it was read from. */
    file: string;
  })
  | { state: "unknown"; error: string; file: string };

/** The circuits of `names`, read from the state root. Never throws. */
export async function readCircuits(
  stateRoot: string,
  names: readonly string[],
): Promise<Map<string, CircuitView>> {
  const store = new FileCircuitStore(stateRoot);
  const out = new Map<string, CircuitView>();
  await Promise.all(names.map(async (name) => {
    const file = store.path(name);
    try {
      const rec = await store.read(name);
      out.set(
        name,
        rec
          ? { ...rec, pid_running: (await processRunning(rec.pid)) ?? null, file }
          : { state: "closed" },
      );
    } catch (err) {
      out.set(name, { state: "unknown", error: messageOf(err), file });
    }
  }));
  return out;
}

/** One line for people: `closed`, or what opened it, until when, and how to re-arm it. */
export function circuitText(name: string, v: CircuitView): string {
  if (v.state === "closed") return "closed";
  if (v.state === "unknown") return `unknown: ${v.file} cannot be read (${v.error})`;
  const who = v.pid_running === false
    ? `pid ${v.pid}, no longer running: its next start re-arms it`
    : `pid ${v.pid}`;
  const refuses = v.required ? "; it is required, so the operations it decides are refused" : "";
  return `OPEN since ${v.opened_at} (${who}) after ${plural(v.failures, "failure")} in a row ` +
    `(last: ${v.last_error}); its calls are skipped${refuses}; one probe call is let through ` +
    `after ${v.retry_at}; 'the-loop hooks reset ${name}' re-arms it now`;
}
