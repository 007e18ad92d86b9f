/**
 * The hidden `the-loop __hook-host` mode: a child process that runs one hook's bundle in its
 * sandboxed worker, spoken to over stdin/stdout in newline-delimited JSON. Its parent kills it
 * on a timeout; it kills itself when its memory passes the hook's budget and its runtime's room
 * (a backstop to V8's heap cap, which does not count buffers and which compiled binaries may not
 * honour).
 *
 * Parent → child: `{type: "load", nonce, name, code, permissions, exportName?, options?,
 * baseDir?, maxMemoryMb}` then `{type: "call", id, point, params}`. Child → parent, each line tagged
 * `"hh": 1` and the load message's `nonce`: `{type: "loaded", handles, methods}`, `{type:
 * "load_failed", error}`, `{type: "result", id, ok, answer | error}`. Anything else on stdout
 * is not the protocol (the parent passes it on). The nonce lives only in this main thread's
 * memory: the hook's worker cannot read stdin, the environment or argv for it, so even output
 * it got onto stdout could not pass for a reply.
 *
 * @module
 */
import { every } from "../../../async/mod.ts";
import { messageOf } from "../../../errors.ts";
import type { PointName } from "../../sdk/points.ts";
import { startWorkerHook, type WorkerHook } from "./_worker_executor.ts";
import { budgetMb, RUNTIME_ALLOWANCE_MB } from "./host_command.ts";
import { hostLines } from "./_host_lines.ts";

/** The exit code of a child that passed its memory cap. */
export const MEMORY_EXIT_CODE = 86;

const encoder = new TextEncoder();
let nonce = "";

function send(msg: Record<string, unknown>): void {
  let bytes = encoder.encode(JSON.stringify({ ...msg, hh: 1, nonce }) + "\n");
  while (bytes.length > 0) bytes = bytes.subarray(Deno.stdout.writeSync(bytes));
}

/**
 * Exits when the process's RSS passes what it had before the hook's worker started by more than
 * the hook's budget and the room its runtime takes. (Not its anonymous memory alone, which would
 * leave out the program's own pages: `/proc/self/status` is closed to anything short of
 * `--allow-all`, which this process does not have.)
 */
function watchMemory(maxMemoryMb: number): void {
  const budget = budgetMb(maxMemoryMb);
  const limit = Deno.memoryUsage().rss + (budget + RUNTIME_ALLOWANCE_MB) * 1024 * 1024;
  every(
    () => {
      if (Deno.memoryUsage().rss > limit) {
        console.error(
          `the-loop hook host: memory passed the hook's ${budget} MiB (and the ` +
            `${RUNTIME_ALLOWANCE_MB} MiB its runtime may take) above start; exiting`,
        );
        Deno.exit(MEMORY_EXIT_CODE);
      }
    },
    20,
    { persistent: false },
  );
}

async function handleCall(
  hook: WorkerHook,
  msg: { id: number; point: PointName; params: Record<string, unknown> },
) {
  try {
    // The parent enforces the time budget (it kills this process); no timer of our own.
    const { answer } = await hook.call(msg.point, msg.params, { timeoutMs: 2 ** 31 - 1 });
    send({ type: "result", id: msg.id, ok: true, answer });
  } catch (err) {
    send({ type: "result", id: msg.id, ok: false, error: messageOf(err) });
  }
}

/** Runs the hook-host protocol until stdin closes. */
export async function main(): Promise<void> {
  try {
    Deno.addSignalListener("SIGINT", () => {}); // the parent decides when this child ends
  } catch { /* no SIGINT listeners on this platform */ }
  let hook: WorkerHook | undefined;
  for await (const line of hostLines(Deno.stdin)) {
    if (!line.trim()) continue;
    const msg = JSON.parse(line);
    if (msg.type === "load") {
      nonce = String(msg.nonce ?? "");
      delete msg.nonce;
      watchMemory(msg.maxMemoryMb);
      try {
        hook = await startWorkerHook(msg);
        send({ type: "loaded", handles: await hook.loaded(), methods: hook.methods() });
      } catch (err) {
        send({ type: "load_failed", error: messageOf(err) });
      }
    } else if (msg.type === "call" && hook) {
      void handleCall(hook, msg);
    }
  }
  await hook?.close();
  Deno.exit(0);
}
