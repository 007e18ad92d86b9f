import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { join } from "node:path";
import {
  capabilityFor,
  ensureSessionKey,
  SESSION_KEY_BYTES,
  sessionKeyPath,
  verifyCapability,
} from "./session_key.ts";

Deno.test("ensureSessionKey: made once (32 bytes, mode 0600), then read back", async () => {
  const root = await Deno.makeTempDir();
  try {
    const key = await ensureSessionKey(join(root, "state"));
    assert.equal(key.length, SESSION_KEY_BYTES);
    const path = sessionKeyPath(join(root, "state"));
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    assert.deepEqual(await ensureSessionKey(join(root, "state")), key, "a restart keeps the key");
    assert.deepEqual(
      (await Array.fromAsync(Deno.readDir(join(root, "state")))).map((e) => e.name),
      ["session.key"],
      "no temporary file left behind",
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("ensureSessionKey: racing creators all get the one key", async () => {
  const root = await Deno.makeTempDir();
  try {
    const keys = await Promise.all(Array.from({ length: 8 }, () => ensureSessionKey(root)));
    for (const k of keys) assert.deepEqual(k, keys[0]);
    assert.deepEqual(await Deno.readFile(sessionKeyPath(root)), keys[0]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("ensureSessionKey: a key others can read is made 0600; a wrong-sized one is refused", async () => {
  const root = await Deno.makeTempDir();
  try {
    const path = sessionKeyPath(root);
    await Deno.writeFile(path, new Uint8Array(SESSION_KEY_BYTES).fill(7), { mode: 0o644 });
    await Deno.chmod(path, 0o644);
    assert.deepEqual(await ensureSessionKey(root), new Uint8Array(SESSION_KEY_BYTES).fill(7));
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    await Deno.writeFile(path, new Uint8Array(5));
    await assert.rejects(ensureSessionKey(root), /is 5 bytes, not 32: remove it/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("capabilityFor: base64url HMAC-SHA256 of the ref; verified for that ref only", () => {
  const key = new Uint8Array(SESSION_KEY_BYTES).fill(1);
  const ref = "github:octo/repo#1";
  const cap = capabilityFor(key, ref);
  assert.match(cap, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(cap, createHmac("sha256", key).update(ref).digest("base64url"));
  assert.ok(verifyCapability(key, ref, cap));
  assert.ok(!verifyCapability(key, "github:octo/repo#2", cap), "another item's capability");
  assert.ok(!verifyCapability(new Uint8Array(SESSION_KEY_BYTES), ref, cap), "another key");
  assert.ok(!verifyCapability(key, ref, cap.slice(0, -1)));
  assert.ok(!verifyCapability(key, ref, undefined));
  assert.ok(!verifyCapability(key, ref, ""));
});
