/**
 * The daemons' session key and the capabilities made from it. The key is 32 random bytes in
 * `<state.root>/session.key` (mode 0600), made once by {@linkcode ensureSessionKey} and kept
 * across restarts, so a session spawned before a restart still holds a capability that works;
 * both daemons of a state root share it. A session's capability (`THE_LOOP_SESSION` in its
 * environment) is {@linkcode capabilityFor}: base64url HMAC-SHA256(key, its work item's ref),
 * which the control endpoint requires for `advance` and `ask` on that ref
 * ({@linkcode verifyCapability}, constant time), so an agent can act only on its own item.
 *
 * The file is written whole under a temporary name and linked into place (a second daemon
 * racing to make it reads the first one's); an existing key readable by others is made 0600.
 * `node:crypto`'s HMAC is used rather than WebCrypto's because a session's environment is asked
 * for synchronously at each launch (`SessionDispatcherOptions.sessionEnv`).
 *
 * @module
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { join } from "node:path";
import { messageOf } from "../errors.ts";

/** The key's file name under `state.root`. */
export const SESSION_KEY_FILE = "session.key";
/** The key's length, in bytes. */
export const SESSION_KEY_BYTES = 32;

/** The key's path under `stateRoot`. */
export function sessionKeyPath(stateRoot: string): string {
  return join(stateRoot, SESSION_KEY_FILE);
}

/** The key of `stateRoot`: read, or made (once) when there is none. */
export async function ensureSessionKey(stateRoot: string): Promise<Uint8Array> {
  const path = sessionKeyPath(stateRoot);
  const existing = await readKey(path);
  if (existing) return existing;
  await Deno.mkdir(stateRoot, { recursive: true });
  const key = crypto.getRandomValues(new Uint8Array(SESSION_KEY_BYTES));
  const tmp = join(stateRoot, `.${SESSION_KEY_FILE}.${crypto.randomUUID().slice(0, 8)}.tmp`);
  try {
    {
      using file = await Deno.open(tmp, { write: true, createNew: true, mode: 0o600 });
      await Deno.chmod(tmp, 0o600);
      let rest: Uint8Array = key;
      while (rest.length > 0) rest = rest.subarray(file.writeSync(rest));
      await file.sync();
    }
    try {
      await Deno.link(tmp, path); // fails when another daemon made it first
      return key;
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    }
  } catch (error) {
    throw new Error(`cannot make the session key ${path}: ${messageOf(error)}`);
  } finally {
    await Deno.remove(tmp).catch(() => {});
  }
  const theirs = await readKey(path);
  if (!theirs) throw new Error(`the session key ${path} vanished while it was made`);
  return theirs;
}

/** The key at `path`, or undefined when there is none; throws on a file that is not one. */
async function readKey(path: string): Promise<Uint8Array | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw new Error(`cannot read the session key ${path}: ${messageOf(error)}`);
  }
  if (bytes.length !== SESSION_KEY_BYTES) {
    throw new Error(
      `the session key ${path} is ${bytes.length} bytes, not ${SESSION_KEY_BYTES}: remove it ` +
        "(a new one is made at the next start; running sessions must then be restarted)",
    );
  }
  const { mode } = await Deno.stat(path);
  if (mode !== null && (mode & 0o077) !== 0) await Deno.chmod(path, 0o600);
  return bytes;
}

/** A session's capability for `ref`: base64url HMAC-SHA256(key, ref), no padding. */
export function capabilityFor(key: Uint8Array, ref: string): string {
  return createHmac("sha256", key).update(ref, "utf8").digest("base64url");
}

/** Whether `capability` is `ref`'s, compared in constant time. */
export function verifyCapability(key: Uint8Array, ref: string, capability: unknown): boolean {
  if (typeof capability !== "string") return false;
  const want = new TextEncoder().encode(capabilityFor(key, ref));
  const got = new TextEncoder().encode(capability);
  return got.length === want.length && timingSafeEqual(got, want);
}
