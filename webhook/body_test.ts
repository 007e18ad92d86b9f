import assert from "node:assert/strict";
import { readCapped } from "./body.ts";

/** A request whose `body` getter is counted (it turns the body into a stream: the slow read). */
function counted(body: BodyInit | null, headers: Record<string, string>) {
  const req = new Request("http://127.0.0.1/gh-webhook", { method: "POST", body, headers });
  const seen = { body: 0 };
  const proto = Object.getPrototypeOf(req);
  const getter = Object.getOwnPropertyDescriptor(proto, "body")!.get!;
  Object.defineProperty(req, "body", {
    get() {
      seen.body++;
      return getter.call(req);
    },
  });
  return { req, seen };
}

Deno.test("a body with a declared length is read in one go, never through its stream", async () => {
  const { req, seen } = counted("x".repeat(5_000), { "content-length": "5000" });
  const body = await readCapped(req, 10_000);
  assert.equal(body.ok && body.bytes.length, 5_000);
  assert.equal(seen.body, 0);
});

Deno.test("a declared length over the cap is refused without reading the body", async () => {
  const { req } = counted("x".repeat(5_000), { "content-length": "5000" });
  assert.deepEqual(await readCapped(req, 4_999), {
    ok: false,
    reason: "too-large",
    declared: 5_000,
  });
});

Deno.test("a body of no declared length is read as a stream, up to the cap", async () => {
  const chunks = (n: number) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < n; i++) c.enqueue(new Uint8Array(1_000).fill(120));
        c.close();
      },
    });
  const ok = await readCapped(counted(chunks(3), {}).req, 3_000);
  assert.equal(ok.ok && new TextDecoder().decode(ok.bytes), "x".repeat(3_000));
  assert.deepEqual(await readCapped(counted(chunks(4), {}).req, 3_000), {
    ok: false,
    reason: "too-large",
  });
});

Deno.test("a request with no body reads as empty", async () => {
  const body = await readCapped(counted(null, {}).req, 10);
  assert.equal(body.ok && body.bytes.length, 0);
});
