/**
 * The host side of a hook's path checks (`_runtime_fs.ts` is the worker's): answers, over a
 * buffer shared with the worker, where a path the hook named really leads and whether that lies
 * inside a granted real path of each kind the call needs. The host resolves, not the worker:
 * resolving needs `read` on every component, which a hook granted only `write`, or a path in
 * one directory, does not have. One gate per worker; it closes with its worker.
 *
 * @module
 */
import { messageOf } from "../../../errors.ts";
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { realTarget, within } from "./_real_path.ts";
import { type FsGateInit, GATE, type Scope } from "./_runtime_fs.ts";

/** What a kind's grant is, lexically (as Deno checks it) and really. */
interface Grant {
  scope: Scope;
  /** The paths Deno was given (as written and as resolved). */
  lexical: string[];
  /** Where they really lead. */
  real: string[];
}

/** One worker's gate: `init` goes in its init message; `attach` ties it to the worker. */
export interface FsGate {
  init: FsGateInit;
  /** Makes `worker.terminate()` close the gate first (so a waiting check wakes); returns it. */
  attach(worker: Worker): Worker;
  close(): void;
}

const KIND_NAME = { r: "read", w: "write" } as const;

function grantOf(value: unknown): Grant {
  if (value === true || value === "inherit") return { scope: "all", lexical: [], real: [] };
  if (!Array.isArray(value)) return { scope: "none", lexical: [], real: [] };
  const lexical = value.map((p) => resolve(String(p)));
  const real: string[] = [];
  for (const path of lexical) {
    let target: string;
    try {
      target = realTarget(path, { follow: true });
    } catch {
      continue; // a link loop grants nothing
    }
    if (!real.includes(target)) real.push(target);
  }
  return { scope: "some", lexical, real };
}

/** The directory `Deno.makeTempDir()` uses when given none (Rust's `temp_dir()`). */
function tempDir(): string {
  if (Deno.build.os === "windows") return Deno.env.get("TMP") ?? Deno.env.get("TEMP") ?? "C:\\";
  return Deno.env.get("TMPDIR") || "/tmp";
}

/** The reply to one request (see `_runtime_fs.ts` for the wire format). */
export function answer(request: string, grants: { r: Grant; w: Grant }): string {
  const [kinds, follow, form, op] = request.split("\0", 4);
  const value = request.split("\0").slice(4).join("\0");
  let abs: string;
  if (form === "t") abs = resolve(tempDir());
  else if (form === "u" || form === "f") {
    try {
      abs = resolve(fileURLToPath(value));
    } catch (err) {
      return `bad\0${op}: ${messageOf(err)}`;
    }
  } else abs = isAbsolute(value) ? resolve(value) : resolve(Deno.cwd(), value);
  const out = (path: string) => form === "f" ? pathToFileURL(path).href : path;
  const needed = [...kinds].filter((k): k is "r" | "w" => k === "r" || k === "w");
  // outside every grant as written: Deno refuses it with its own message
  if (needed.some((k) => !grants[k].lexical.some((g) => within(abs, g)))) {
    return `pass\0${out(abs)}`;
  }
  let real: string;
  try {
    real = realTarget(abs, { follow: follow === "1" });
  } catch (err) {
    return `refused\0${op}: "${abs}" cannot be resolved: ${messageOf(err)}`;
  }
  for (const k of needed) {
    if (grants[k].real.some((g) => within(real, g))) continue;
    const name = KIND_NAME[k];
    return `refused\0${op}: "${abs}" leads to "${real}", outside the hook's ${name} grants ` +
      `(${grants[k].real.join(", ")}): a grant covers the real paths under it, and a symlink ` +
      `in it does not widen it; grant the target itself in the entry's permissions.${name} if ` +
      "the hook should reach it";
  }
  return `ok\0${out(real)}`;
}

/** Opens the gate for a worker created with `permissions`. */
export function openFsGate(permissions: Deno.PermissionOptionsObject): FsGate {
  const grants = { r: grantOf(permissions.read), w: grantOf(permissions.write) };
  const init: FsGateInit = { read: grants.r.scope, write: grants.w.scope };
  if (init.read !== "some" && init.write !== "some") {
    return { init, attach: (worker) => worker, close: () => {} };
  }
  const buffer = new SharedArrayBuffer(GATE.SIZE);
  init.buffer = buffer;
  const state = new Int32Array(buffer, 0, 2);
  const bytes = new Uint8Array(buffer);
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  let closed = false;

  const serve = () => {
    const length = Atomics.load(state, 1);
    const request = decoder.decode(bytes.slice(GATE.HEADER, GATE.HEADER + length));
    let reply: string;
    try {
      reply = answer(request, grants);
    } catch (err) {
      reply = `refused\0the path check failed: ${messageOf(err)}`;
    }
    let encoded = encoder.encode(reply);
    if (encoded.length > GATE.SIZE - GATE.HEADER) {
      encoded = encoder.encode(reply.slice(0, 4096) + "…");
    }
    bytes.set(encoded, GATE.HEADER);
    Atomics.store(state, 1, encoded.length);
    Atomics.store(state, 0, GATE.REPLY);
    Atomics.notify(state, 0);
  };
  (async () => {
    while (!closed) {
      const now = Atomics.load(state, 0);
      if (now === GATE.REQUEST) {
        serve();
        continue;
      }
      // a pending waitAsync keeps no event loop alive and holds no op: nothing leaks
      const waiting = Atomics.waitAsync(state, 0, now);
      if (waiting.async) await waiting.value;
    }
  })();
  const close = () => {
    if (closed) return;
    closed = true;
    Atomics.store(state, 0, GATE.CLOSED);
    Atomics.notify(state, 0);
  };
  return {
    init,
    close,
    attach(worker) {
      const terminate = worker.terminate.bind(worker);
      worker.terminate = () => {
        close();
        terminate();
      };
      return worker;
    },
  };
}
