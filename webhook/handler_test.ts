import assert from "node:assert/strict";
import { MemorySink } from "../events/mod.ts";
import type { IngressEvent } from "../ingress/mod.ts";
import { createHandler, type HandlerOptions, MAX_BODY_BYTES, SignatureVerifier } from "./mod.ts";
import { delivery, SECRET, sign } from "./_test_utils.ts";

const URL_ = "http://127.0.0.1:8787/gh-webhook";

async function setup(opts: Partial<HandlerOptions> & { secret?: string | null } = {}) {
  const sink = new MemorySink({ strict: true });
  const accepted: IngressEvent[] = [];
  const secret = opts.secret === undefined ? SECRET : opts.secret;
  // a second passes between requests, so each refusal is written (see the rate-limit test)
  let clock = 0;
  const handler = createHandler({
    path: "/gh-webhook",
    verifier: secret ? await SignatureVerifier.create(secret) : undefined,
    accept: (e) => (accepted.push(e), true),
    events: sink,
    now: () => (clock += 1_000),
    ...opts,
  });
  const call = async (req: Request) => {
    const res = await handler(req);
    return { status: res.status, body: await res.json(), headers: res.headers };
  };
  return { sink, accepted, handler, call };
}

Deno.test("GET /health and /healthz, with or without a trailing slash, answer 200 ok", async () => {
  const { call, sink } = await setup();
  for (const path of ["/health", "/healthz", "/health/", "/healthz/"]) {
    const r = await call(new Request(`http://h${path}`));
    assert.deepEqual([path, r.status, r.body], [path, 200, { status: "ok" }]);
  }
  assert.deepEqual(sink.records, []);
});

Deno.test("any other GET, and a POST to another path, answer 404 not found", async () => {
  const { call, sink, accepted } = await setup();
  for (
    const req of [
      new Request("http://h/"),
      new Request("http://h/gh-webhook"),
      new Request("http://h/healthzz"),
      await delivery("http://h/other"),
      await delivery("http://h/gh-webhook/"),
      new Request("http://h/gh-webhook", { method: "PUT", body: "{}" }),
    ]
  ) {
    const r = await call(req);
    assert.deepEqual([r.status, r.body], [404, { status: "not found" }], req.url);
  }
  assert.deepEqual(accepted, []);
  const rejected = sink.ofType("webhook.rejected");
  assert.equal(rejected.length, 6);
  assert.ok(rejected.every((r) => r.reason === "not-found" && r.level === "debug"));
});

Deno.test("a verified JSON delivery answers 202 accepted and is handed on with its headers", async () => {
  const { call, sink, accepted } = await setup();
  const payload = { action: "created", comment: { body: "hi" } };
  const r = await call(
    await delivery(URL_, { payload, deliveryId: "d-1", event: "issue_comment" }),
  );
  assert.deepEqual([r.status, r.body], [202, { status: "accepted" }]);
  assert.deepEqual(accepted, [{
    ghEvent: "issue_comment",
    deliveryId: "d-1",
    via: "gh-webhook",
    payload,
  }]);
  const [rec] = sink.ofType("webhook.received");
  assert.deepEqual(
    [rec.gh_event, rec.action, rec.delivery_id, rec.verified, rec.bytes, rec.level],
    ["issue_comment", "created", "d-1", true, JSON.stringify(payload).length, "info"],
  );
});

Deno.test("a missing, malformed or wrong signature answers 401 and hands nothing on", async () => {
  const { call, sink, accepted } = await setup();
  const body = JSON.stringify({ action: "opened" });
  const right = await sign(body);
  const wrongLast = right.slice(0, -1) + (right.endsWith("0") ? "1" : "0");
  const cases: [string, Record<string, string | undefined>][] = [
    ["missing", {}],
    ["malformed: no prefix", { signature: right.slice(7) }],
    ["malformed: sha1", { signature: "sha1=" + right.slice(7, 47) }],
    ["malformed: short", { signature: right.slice(0, -2) }],
    ["malformed: not hex", { signature: "sha256=" + "z".repeat(64) }],
    ["wrong: last digit", { signature: wrongLast }],
    ["wrong: other secret", { signature: await sign(body, "another secret") }],
  ];
  for (const [name, o] of cases) {
    const req = await delivery(URL_, { body, secret: null, signature: o.signature });
    const r = await call(req);
    assert.deepEqual([name, r.status, r.body], [name, 401, { status: "invalid signature" }]);
  }
  assert.deepEqual(accepted, []);
  const rejected = sink.ofType("webhook.rejected");
  assert.equal(rejected.length, cases.length);
  assert.ok(rejected.every((r) => r.reason === "invalid-signature" && r.level === "warning"));
  assert.deepEqual(sink.ofType("webhook.received"), []);
  // and the right one passes
  assert.equal(
    (await call(await delivery(URL_, { body, secret: null, signature: right }))).status,
    202,
  );
});

Deno.test("the signature check agrees with WebCrypto's HMAC and refuses every near miss", async () => {
  const { SignatureVerifier } = await import("./signature.ts");
  const secret = "It's a Secret to Everybody";
  const body = new TextEncoder().encode("Hello, World!");
  const v = await SignatureVerifier.create(secret);
  // GitHub's documented example: this secret and body give this signature
  const documented = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
  assert.equal(await v.sign(body), documented);
  assert.equal(await v.verify(documented, body), true);
  assert.equal(await v.verify(documented.toUpperCase().replace("SHA256", "sha256"), body), true);
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const webcrypto = new Uint8Array(await crypto.subtle.sign("HMAC", key, body));
  assert.equal(
    documented,
    `sha256=${Array.from(webcrypto, (b) => b.toString(16).padStart(2, "0")).join("")}`,
  );
  for (let i = 7; i < documented.length; i++) {
    const flipped = documented.slice(0, i) + (documented[i] === "0" ? "1" : "0") +
      documented.slice(i + 1);
    assert.equal(await v.verify(flipped, body), false, `differs at ${i}`);
  }
  for (const bad of [null, "", "sha256=", "sha1=" + "0".repeat(40), documented + "00"]) {
    assert.equal(await v.verify(bad, body), false, String(bad));
  }
});

Deno.test("the signature agrees with createHmac for keys shorter than, as long as and longer than a block", async () => {
  const { SignatureVerifier } = await import("./signature.ts");
  const { createHmac } = await import("node:crypto");
  const bodies = [new Uint8Array(0), new TextEncoder().encode("{}"), new Uint8Array(6000).fill(7)];
  for (const length of [1, 32, 63, 64, 65, 200]) {
    const secret = "kéy".repeat(length).slice(0, length);
    const v = await SignatureVerifier.create(secret);
    for (const body of bodies) {
      const expected = `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
      assert.equal(await v.sign(body), expected, `key of ${length}, body of ${body.length}`);
      assert.equal(await v.verify(expected, body), true);
    }
  }
});

Deno.test("without a secret, deliveries are accepted unverified (verified: false)", async () => {
  const { call, sink, accepted } = await setup({ secret: null });
  const r = await call(await delivery(URL_, { secret: null }));
  assert.deepEqual([r.status, r.body], [202, { status: "accepted" }]);
  assert.equal(accepted.length, 1);
  assert.equal(sink.ofType("webhook.received")[0].verified, false);
});

Deno.test("a body that is not a JSON object answers 400 invalid payload at error level", async () => {
  const { call, sink, accepted } = await setup();
  for (const body of ["not json", '{"a":', "[1,2]", "42", "null", '"text"']) {
    const r = await call(await delivery(URL_, { body }));
    assert.deepEqual([body, r.status, r.body], [body, 400, { status: "invalid payload" }]);
  }
  // invalid UTF-8 is not JSON either
  const bytes = new Uint8Array([0x7b, 0xff, 0x7d]);
  const req = new Request(URL_, {
    method: "POST",
    headers: { "x-github-event": "issues", "x-hub-signature-256": await sign(bytes) },
    body: bytes,
  });
  assert.equal((await call(req)).status, 400);
  assert.deepEqual(accepted, []);
  const rejected = sink.ofType("webhook.rejected");
  assert.equal(rejected.length, 7);
  assert.ok(rejected.every((r) => r.reason === "invalid-payload" && r.level === "error"));
});

Deno.test("a declared Content-Length over the cap answers 413 before a byte is read", async () => {
  const { call, sink } = await setup();
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      pulled += 65536;
      c.enqueue(new Uint8Array(65536));
    },
  });
  const req = new Request(URL_, {
    method: "POST",
    headers: { "content-length": String(30_000_000), "x-github-event": "issues" },
    body,
  });
  const r = await call(req);
  assert.deepEqual([r.status, r.body], [413, { status: "payload too large" }]);
  assert.equal(r.headers.get("connection"), "close");
  // a ReadableStream pulls once to fill its queue when it is created; nothing more was read
  assert.ok(pulled <= 65536, `pulled ${pulled} bytes`);
  const [rec] = sink.ofType("webhook.rejected");
  assert.deepEqual([rec.reason, rec.status, rec.declared_bytes], ["too-large", 413, 30_000_000]);
});

Deno.test("a 30 MB streamed body is refused at the cap, not read to the end", async () => {
  const { call, sink, accepted } = await setup();
  const total = 30_000_000;
  const chunk = 64 * 1024;
  let pulled = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (pulled >= total) return c.close();
      pulled += chunk;
      c.enqueue(new Uint8Array(chunk).fill(0x20));
    },
    cancel() {
      cancelled = true;
    },
  });
  const req = new Request(URL_, { method: "POST", headers: { "x-github-event": "issues" }, body });
  const r = await call(req);
  assert.deepEqual([r.status, r.body], [413, { status: "payload too large" }]);
  assert.ok(pulled <= MAX_BODY_BYTES + 2 * chunk, `pulled ${pulled} of ${total} bytes`);
  assert.ok(pulled < total);
  assert.ok(cancelled, "the body stream was cancelled");
  assert.deepEqual(accepted, []);
  assert.equal(sink.ofType("webhook.rejected")[0].reason, "too-large");
});

Deno.test("a body just under the cap is accepted", async () => {
  const { call } = await setup({ maxBodyBytes: 1000 });
  const body = JSON.stringify({ pad: "x".repeat(1000 - 10) });
  assert.equal(body.length, 1000);
  assert.equal((await call(await delivery(URL_, { body }))).status, 202);
  const over = JSON.stringify({ pad: "x".repeat(1000 - 9) });
  assert.equal((await call(await delivery(URL_, { body: over }))).status, 413);
});

Deno.test("a full routing queue answers 503 with Retry-After and logs queue-full", async () => {
  const { call, sink } = await setup({ accept: () => false });
  const r = await call(await delivery(URL_));
  assert.deepEqual([r.status, r.body], [503, { status: "busy" }]);
  assert.equal(r.headers.get("retry-after"), "30");
  assert.equal(sink.ofType("webhook.rejected")[0].reason, "queue-full");
  assert.deepEqual(sink.ofType("webhook.received"), []);
});

Deno.test("an accept that throws answers 500 and the handler keeps serving", async () => {
  let n = 0;
  const { call, sink } = await setup({
    accept: () => {
      if (n++ === 0) throw new Error("boom");
      return true;
    },
  });
  assert.equal((await call(await delivery(URL_))).status, 500);
  assert.equal(sink.ofType("webhook.rejected")[0].reason, "internal-error");
  assert.equal((await call(await delivery(URL_))).status, 202);
});

Deno.test("a delivery without X-GitHub-Delivery gets a local id", async () => {
  const { call, accepted } = await setup();
  const req = await delivery(URL_);
  req.headers.delete("x-github-delivery");
  assert.equal((await call(req)).status, 202);
  assert.match(accepted[0].deliveryId, /^local-[0-9a-f-]{36}$/);
});

Deno.test("neither the secret nor the body ever reaches an event", async () => {
  const { call, sink } = await setup();
  const marker = "BODY-MARKER-7f3a";
  await call(await delivery(URL_, { payload: { action: "created", text: marker } }));
  await call(await delivery(URL_, { payload: { text: marker }, secret: "wrong" }));
  await call(await delivery(URL_, { body: `${marker} not json` }));
  const text = JSON.stringify(sink.records);
  assert.equal(sink.records.length, 3);
  assert.ok(!text.includes(SECRET), "the secret leaked");
  assert.ok(!text.includes(marker), "the body leaked");
});

Deno.test("a flood of refusals is written once a second per reason, with how many were left out", async () => {
  let now = 0;
  const { call, sink } = await setup({ now: () => now });
  const bad = () => delivery(URL_, { secret: null, signature: "sha256=" + "0".repeat(64) });
  for (let i = 0; i < 50; i++) assert.equal((await call(await bad())).status, 401);
  // another reason has a window of its own
  assert.equal((await call(new Request("http://h/elsewhere"))).status, 404);
  let rejected = sink.ofType("webhook.rejected");
  assert.deepEqual(rejected.map((r) => [r.reason, r.suppressed]), [
    ["invalid-signature", 0],
    ["not-found", 0],
  ]);
  now += 999;
  assert.equal((await call(await bad())).status, 401);
  assert.equal(sink.ofType("webhook.rejected").length, 2, "still inside the second");
  now += 1;
  assert.equal((await call(await bad())).status, 401);
  rejected = sink.ofType("webhook.rejected");
  assert.deepEqual(rejected.map((r) => [r.reason, r.suppressed]), [
    ["invalid-signature", 0],
    ["not-found", 0],
    ["invalid-signature", 50],
  ]);
});

Deno.test("internal errors are always written, however many", async () => {
  const { call, sink } = await setup({
    now: () => 0,
    accept: () => {
      throw new Error("boom");
    },
  });
  for (let i = 0; i < 3; i++) assert.equal((await call(await delivery(URL_))).status, 500);
  assert.deepEqual(sink.ofType("webhook.rejected").map((r) => r.reason), [
    "internal-error",
    "internal-error",
    "internal-error",
  ]);
});

Deno.test("the path is matched without its query; a real U+FFFD in the body is fine", async () => {
  const { call, accepted } = await setup();
  const withQuery = await call(await delivery(`${URL_}?from=github`, { deliveryId: "q1" }));
  assert.equal(withQuery.status, 202);
  const longer = await call(await delivery(`${URL_}/more`, { deliveryId: "q2" }));
  assert.equal(longer.status, 404);
  const replacement = await call(
    await delivery(URL_, { payload: { action: "created", text: "a \uFFFD b" }, deliveryId: "q3" }),
  );
  assert.equal(replacement.status, 202);
  assert.deepEqual(accepted.map((e) => e.deliveryId), ["q1", "q3"]);
  assert.equal((accepted[1].payload as { text: string }).text, "a \uFFFD b");
});
