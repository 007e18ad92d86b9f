import assert from "node:assert/strict";
import { join } from "node:path";
import { BUILTIN_LOOPS } from "../loops/mod.ts";
import { EventLog } from "../events/mod.ts";
import { startUi, type UiOptions, type UiServer } from "./server.ts";
import type { ControlRequest } from "./types.ts";
import { type Fixture, fixture } from "./_test_utils.ts";

async function validator(name: "state" | "item"): Promise<(doc: unknown) => void> {
  const { Ajv2020 } = await import("ajv/dist/2020.js");
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
  for (const s of ["state", "item"]) {
    const url = new URL(`../schema/ui/${s}.json`, import.meta.url);
    ajv.addSchema(JSON.parse(await Deno.readTextFile(url)));
  }
  const validate = ajv.getSchema(`${name}.json`)!;
  return (doc) => assert.ok(validate(doc), ajv.errorsText(validate.errors));
}

async function serve(
  f: Fixture,
  o: Partial<UiOptions> = {},
): Promise<UiServer & { asked: ControlRequest[] }> {
  const asked: ControlRequest[] = [];
  const server = await startUi({
    stateRoot: f.root,
    config: f.loaded.config,
    host: "127.0.0.1",
    port: 0,
    loops: BUILTIN_LOOPS,
    controls: (req) => {
      asked.push(req);
      return Promise.resolve({ ok: true, message: `did ${req.action}` });
    },
    ...o,
  });
  return { ...server, asked };
}

/** The page's CSRF token, as the page carries it. */
async function csrfOf(url: string, init: RequestInit = {}): Promise<string> {
  const html = await (await fetch(url, init)).text();
  return /name="the-loop-csrf" content="([0-9a-f]+)"/.exec(html)![1];
}

const enc = encodeURIComponent;

Deno.test("GET /api/v1/state and /api/v1/items/REF answer JSON that validates against schema/ui", async () => {
  const f = await fixture();
  const ui = await serve(f);
  try {
    const state = await (await fetch(`${ui.url}api/v1/state`)).json();
    (await validator("state"))(state);
    assert.equal(state.items.length, 5);
    assert.equal(state.attention.questions[0].ref, f.ref(1));
    const item = await fetch(`${ui.url}api/v1/items/${enc(f.ref(3))}`);
    assert.equal(item.status, 200);
    const view = await item.json();
    (await validator("item"))(view);
    assert.equal(view.gate.node, "review");
    assert.equal((await fetch(`${ui.url}api/v1/items/${enc("github:octo/demo#99")}`)).status, 404);
    assert.equal((await fetch(`${ui.url}api/v1/items/nonsense`)).status, 400);
    assert.equal((await fetch(`${ui.url}nowhere`)).status, 404);
    assert.equal((await fetch(`${ui.url}api/v1/state`, { method: "PUT" })).status, 405);
  } finally {
    await ui.close();
  }
});

Deno.test("the page, its item route and its assets are served; the page has its ids and a CSRF token", async () => {
  const f = await fixture();
  const ui = await serve(f);
  try {
    const res = await fetch(ui.url);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-security-policy")!, /script-src 'self'/);
    const html = await res.text();
    for (const id of ['id="items"', 'id="questions"', 'id="gates"', 'id="terminal"']) {
      assert.ok(html.includes(id), id);
    }
    assert.match(html, /name="the-loop-csrf" content="[0-9a-f]{64}"/);
    assert.equal((await fetch(`${ui.url}items/${enc(f.ref(1))}`)).status, 200);
    const js = await fetch(`${ui.url}assets/app.js`);
    assert.match(js.headers.get("content-type")!, /javascript/);
    assert.ok(!(await js.text()).includes("innerHTML"));
    // the terminal's files are optional: empty stand-ins until the terminal supplies its own
    assert.equal((await fetch(`${ui.url}assets/terminal.js`)).status, 200);
  } finally {
    await ui.close();
  }
});

Deno.test("read routes change nothing in the state root", async () => {
  const f = await fixture();
  const listing = async () => {
    const out: string[] = [];
    const walk = async (dir: string) => {
      for await (const e of Deno.readDir(dir)) {
        const p = join(dir, e.name);
        if (e.isDirectory) await walk(p);
        else out.push(`${p} ${(await Deno.stat(p)).mtime?.getTime()}`);
      }
    };
    await walk(f.root);
    return out.sort();
  };
  const ui = await serve(f);
  try {
    // ui.started was written at the start; nothing after it
    const before = await listing();
    await (await fetch(`${ui.url}api/v1/state`)).body?.cancel();
    for (let n = 1; n <= 5; n++) {
      await (await fetch(`${ui.url}api/v1/items/${enc(f.ref(n))}`)).body?.cancel();
    }
    await (await fetch(ui.url)).body?.cancel();
    assert.deepEqual(await listing(), before);
  } finally {
    await ui.close();
  }
});

/** Reads server-sent events from `res` until `enough` says so. */
async function readEvents(
  res: Response,
  enough: (text: string) => boolean,
): Promise<string> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!enough(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  await reader.cancel();
  return text;
}

const ids = (text: string) => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));

Deno.test("the event stream: records with byte offsets as ids, resumable with Last-Event-ID", async () => {
  const f = await fixture();
  const ui = await serve(f, { keepAliveMs: 50 });
  try {
    const all = await readEvents(
      await fetch(`${ui.url}api/v1/events?from=0`),
      (t) => ids(t).length >= 4 && t.includes(": keep-alive"),
    );
    assert.match(all, /^event: record$/m);
    const offsets = ids(all);
    assert.ok(offsets.every((o, i) => i === 0 || offsets[i - 1] < o));
    const log = await Deno.readFile(f.loaded.config.eventLog.path);
    assert.equal(log[offsets[0] - 1], 0x0a); // each id is the offset just past a line
    // resumed after the second record: the third comes first
    const resumed = await readEvents(
      await fetch(`${ui.url}api/v1/events`, { headers: { "last-event-id": String(offsets[1]) } }),
      (t) => ids(t).length >= 1,
    );
    assert.equal(ids(resumed)[0], offsets[2]);
    // a record appended now reaches a subscriber that started at the end
    const live = fetch(`${ui.url}api/v1/events`);
    const res = await live;
    const events = new EventLog({ path: f.loaded.config.eventLog.path, source: "test" });
    events.emit("poll.cycle", { items_seen: 42 });
    events.close();
    const next = await readEvents(res, (t) => t.includes('"items_seen":42'));
    assert.match(next, /"event":"poll\.cycle"/);
  } finally {
    await ui.close();
  }
});

Deno.test("the event stream takes at most maxSubscribers at once: one more is 503", async () => {
  const f = await fixture();
  const ui = await serve(f, { maxSubscribers: 1 });
  try {
    const first = await fetch(`${ui.url}api/v1/events`);
    const reader = first.body!.getReader();
    await reader.read(); // connected
    const second = await fetch(`${ui.url}api/v1/events`);
    assert.equal(second.status, 503);
    assert.equal(second.headers.get("retry-after"), "5");
    await second.body?.cancel();
    await reader.cancel();
  } finally {
    await ui.close();
  }
});

Deno.test("a control is a POST with the page's CSRF token and its own Origin; else 403", async () => {
  const f = await fixture();
  const ui = await serve(f);
  try {
    const path = `${ui.url}api/v1/items/${enc(f.ref(1))}/reply`;
    const origin = new URL(ui.url).origin;
    const body = JSON.stringify({ text: "Remove it." });
    const json = { "content-type": "application/json" };
    const none = await fetch(path, { method: "POST", headers: { ...json, origin }, body });
    assert.equal(none.status, 403);
    assert.match((await none.json()).message, /CSRF/);
    const csrf = await csrfOf(ui.url);
    const foreign = await fetch(path, {
      method: "POST",
      headers: { ...json, origin: "http://evil.example", "x-the-loop-csrf": csrf },
      body,
    });
    assert.equal(foreign.status, 403);
    await foreign.body?.cancel();
    assert.deepEqual(ui.asked, []);
    const ok = await fetch(path, {
      method: "POST",
      headers: { ...json, origin, "x-the-loop-csrf": csrf },
      body,
    });
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { ok: true, message: "did reply" });
    const post = (p: string, b: unknown) =>
      fetch(`${ui.url}api/v1/${p}`, {
        method: "POST",
        headers: { ...json, origin, "x-the-loop-csrf": csrf },
        body: JSON.stringify(b),
      }).then((r) => r.body?.cancel().then(() => r.status));
    assert.equal(await post(`items/${enc(f.ref(3))}/verdict`, { outcome: "approve" }), 200);
    assert.equal(await post(`items/${enc(f.ref(2))}/resume`, {}), 200);
    assert.equal(await post(`suspensions/github-octo-demo-4-s00000004/resume`, {}), 200);
    assert.equal(await post(`items/${enc(f.ref(1))}/reply`, { text: " " }), 400);
    assert.equal(await post(`items/${enc(f.ref(1))}/explode`, {}), 400);
    assert.deepEqual(ui.asked, [
      { action: "reply", ref: f.ref(1), text: "Remove it." },
      { action: "verdict", ref: f.ref(3), outcome: "approve" },
      { action: "resume", ref: f.ref(2) },
      { action: "resume-suspension", id: "github-octo-demo-4-s00000004" },
    ]);
    // a GET never acts
    await (await fetch(path)).body?.cancel();
    assert.equal(ui.asked.length, 4);
  } finally {
    await ui.close();
  }
});

Deno.test("a host that is not loopback is refused unless ui.exposed and a token", async () => {
  const f = await fixture();
  await assert.rejects(serve(f, { host: "0.0.0.0" }), /not loopback.*ui\.exposed: true/);
  const exposed = { ...f.loaded.config, ui: { ...f.loaded.config.ui, exposed: true } };
  await assert.rejects(
    serve(f, { host: "0.0.0.0", config: exposed }),
    /\$THE_LOOP_UI_TOKEN holds no token/,
  );
});

Deno.test("exposed, every request needs the token: a bearer header or the cookie of ?token=", async () => {
  const f = await fixture();
  const token = "s3cret-" + crypto.randomUUID();
  const config = { ...f.loaded.config, ui: { ...f.loaded.config.ui, exposed: true } };
  const ui = await serve(f, { host: "0.0.0.0", config, token });
  const base = ui.url.replace("0.0.0.0", "127.0.0.1");
  try {
    const denied = await fetch(`${base}api/v1/state`);
    assert.equal(denied.status, 401);
    assert.ok(!(await denied.text()).includes(token));
    const bearer = await fetch(`${base}api/v1/state`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(bearer.status, 200);
    assert.ok(!(await bearer.text()).includes(token));
    const wrong = await fetch(`${base}?token=nope`, { redirect: "manual" });
    assert.equal(wrong.status, 401);
    await wrong.body?.cancel();
    const login = await fetch(`${base}?token=${enc(token)}`, { redirect: "manual" });
    assert.equal(login.status, 303);
    assert.equal(login.headers.get("location"), "/");
    const cookie = login.headers.get("set-cookie")!.split(";")[0];
    assert.ok(!cookie.includes(token), "the cookie is not the token");
    const page = await fetch(base, { headers: { cookie } });
    assert.equal(page.status, 200);
    assert.ok(!(await page.text()).includes(token));
    const log = await Deno.readTextFile(f.loaded.config.eventLog.path);
    assert.ok(!log.includes(token));
  } finally {
    await ui.close();
  }
});

Deno.test("a port in use is an error that says so", async () => {
  const f = await fixture();
  const ui = await serve(f);
  try {
    const port = Number(new URL(ui.url).port);
    await assert.rejects(serve(f, { port }), /port \d+ on 127\.0\.0\.1 is in use: set ui\.port/);
  } finally {
    await ui.close();
  }
});

Deno.test("the terminal route: 404 when off or absent, 409 without a live pane, else the seam", async () => {
  const f = await fixture();
  const socket = `the-loop-ui-${crypto.randomUUID().slice(0, 8)}`;
  const tmux = (...args: string[]) =>
    new Deno.Command("tmux", { args: ["-L", socket, ...args], stdout: "null", stderr: "null" })
      .output();
  const targets: unknown[] = [];
  const ui = await serve(f, {
    tmuxArgs: ["-L", socket],
    terminal: (_req, target) => {
      targets.push(target);
      return new Response("seam", { status: 200 });
    },
  });
  const bare = await serve(f);
  try {
    const path = `api/v1/items/${enc(f.ref(1))}/terminal`;
    assert.equal(
      await fetch(`${bare.url}${path}`).then((r) => r.body?.cancel().then(() => r.status)),
      404,
    );
    const dead = await fetch(`${ui.url}${path}`);
    assert.equal(dead.status, 409);
    await dead.body?.cancel();
    if (!(await tmux("new-session", "-d", "-s", "loop-github-octo-demo-1", "sleep 30")).success) {
      return; // no tmux here: the rest needs a real pane
    }
    const live = await fetch(`${ui.url}${path}`);
    assert.equal(await live.text(), "seam");
    assert.deepEqual(targets, [{
      ref: f.ref(1),
      tmuxArgs: ["-L", socket],
      session: "loop-github-octo-demo-1",
      mode: "read-only",
    }]);
  } finally {
    await tmux("kill-server");
    await ui.close();
    await bare.close();
  }
});
