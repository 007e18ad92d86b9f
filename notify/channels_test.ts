import assert from "node:assert/strict";
import { join } from "node:path";
import { sendTo, SIGNATURE_HEADER } from "./mod.ts";
import {
  commandChannel,
  endpoint,
  ENVELOPE,
  hmacHex,
  slackChannel,
  webhookChannel,
} from "./_test_utils.ts";
import { VERSION } from "../version.ts";

const SECRET = "s3cr3t-signing-value";

Deno.test("webhook: the envelope POSTed as JSON, signed, and the signature verifies", async () => {
  const ep = endpoint(204);
  try {
    const channel = webhookChannel({
      url: `${ep.url}/in?key=path-token`,
      secretEnv: "HOOK_SECRET",
    });
    const r = await sendTo(channel, ENVELOPE, {
      env: (n) => n === "HOOK_SECRET" ? SECRET : undefined,
    });
    assert.deepEqual(r, { ok: true, status: 204 });
    const [got] = ep.taken;
    assert.equal(got.method, "POST");
    assert.equal(got.path, "/in?key=path-token");
    assert.equal(got.headers.get("content-type"), "application/json");
    assert.equal(got.headers.get("user-agent"), `the-loop/${VERSION}`);
    assert.equal(got.text, JSON.stringify(ENVELOPE)); // the body, exactly
    assert.deepEqual(JSON.parse(got.text), ENVELOPE);
    assert.equal(got.headers.get(SIGNATURE_HEADER), `sha256=${await hmacHex(SECRET, got.body)}`);
  } finally {
    await ep.close();
  }
});

Deno.test("webhook: no secretEnv, no signature; an empty secret fails, naming the variable", async () => {
  const ep = endpoint();
  try {
    const plain = await sendTo(webhookChannel({ url: ep.url }), ENVELOPE, { env: () => undefined });
    assert.equal(plain.ok, true);
    assert.equal(ep.taken[0].headers.get(SIGNATURE_HEADER), null);
    const empty = await sendTo(
      webhookChannel({ url: ep.url, secretEnv: "HOOK_SECRET" }),
      ENVELOPE,
      { env: () => "" },
    );
    assert.equal(empty.ok, false);
    assert.match(empty.error!, /^HOOK_SECRET is not set: export /);
    assert.equal(ep.taken.length, 1, "nothing was sent unsigned");
  } finally {
    await ep.close();
  }
});

Deno.test("webhook: a 500 is a failure with its status; errors show only scheme and host", async () => {
  const ep = endpoint(500);
  try {
    const url = `${ep.url}/hook/T0KEN-IN-PATH?sig=QUERY-SECRET`;
    const r = await sendTo(webhookChannel({ url }), ENVELOPE, { env: () => undefined });
    assert.equal(r.ok, false);
    assert.equal(r.status, 500);
    assert.equal(r.error, `POST to ${ep.url} answered HTTP 500`);
  } finally {
    await ep.close();
  }
  // nothing listens any more: a network error, and still no path or query in it
  const gone = `${ep.url}/hook/T0KEN-IN-PATH?sig=QUERY-SECRET`;
  const r = await sendTo(webhookChannel({ url: gone }), ENVELOPE, { env: () => undefined });
  assert.equal(r.ok, false);
  assert.ok(r.error!.startsWith(`POST to ${ep.url} failed: `), r.error);
  assert.ok(!r.error!.includes("T0KEN") && !r.error!.includes("QUERY-SECRET"), r.error);
});

Deno.test("slack: {text} to the URL in urlEnv; one POST per channel-list entry", async () => {
  const ep = endpoint();
  try {
    const env = (n: string) =>
      n === "THE_LOOP_SLACK_WEBHOOK_URL" ? `${ep.url}/services/X` : undefined;
    assert.deepEqual(await sendTo(slackChannel(), ENVELOPE, { env }), { ok: true, status: 200 });
    assert.deepEqual(JSON.parse(ep.taken[0].text), {
      text: `${ENVELOPE.summary} ${ENVELOPE.url}`,
    });
    assert.equal(ep.taken[0].path, "/services/X");
    const listed = slackChannel({ config: { "channel-list": ["#ops", "#dev"] } });
    assert.equal((await sendTo(listed, ENVELOPE, { env })).ok, true);
    assert.deepEqual(ep.taken.slice(1).map((t) => JSON.parse(t.text).channel), ["#ops", "#dev"]);
  } finally {
    await ep.close();
  }
});

Deno.test("slack: urlEnv not set fails, naming the variable and no value", async () => {
  const r = await sendTo(slackChannel({ urlEnv: "MY_SLACK_URL" }), ENVELOPE, {
    env: () => undefined,
  });
  assert.deepEqual(r, {
    ok: false,
    error: "MY_SLACK_URL is not set: export the Slack incoming-webhook URL",
  });
});

Deno.test("command: argv without a shell, the envelope on stdin, exit code reported", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "the-loop-notify-" });
  const out = join(dir, "got.json");
  // `sh` is argv[0] chosen by the test; the notifier itself runs no shell
  const ok = await sendTo(
    commandChannel({
      command: ["sh", "-c", 'cat > "$1"; echo "$THE_LOOP_NOTIFY_EVENT" > "$1.ev"', "sh", out],
    }),
    ENVELOPE,
    { env: (n) => Deno.env.get(n) },
  );
  assert.deepEqual(ok, { ok: true, exitCode: 0 });
  assert.deepEqual(JSON.parse(Deno.readTextFileSync(out)), ENVELOPE);
  assert.equal(Deno.readTextFileSync(out + ".ev"), "gate-waiting\n");
  // an argument with shell syntax is one argument, not a command
  const literal = join(dir, "$(touch pwned)");
  await sendTo(commandChannel({ command: ["touch", literal] }), ENVELOPE, {
    env: (n) => Deno.env.get(n),
  });
  assert.ok(Deno.statSync(literal).isFile);
  const bad = await sendTo(
    commandChannel({ command: ["sh", "-c", "echo nope >&2; exit 3"] }),
    ENVELOPE,
    { env: (n) => Deno.env.get(n) },
  );
  assert.deepEqual(bad, { ok: false, exitCode: 3, error: "sh exited 3: nope" });
  const missing = await sendTo(commandChannel({ command: [join(dir, "nothing")] }), ENVELOPE, {
    env: (n) => Deno.env.get(n),
  });
  assert.equal(missing.ok, false);
  assert.match(missing.error!, /^cannot run /);
});

Deno.test("command: the environment holds only PATH, HOME, THE_LOOP_* and what env lists", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "the-loop-notify-" });
  const out = join(dir, "env.txt");
  const vars: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: dir,
    GITHUB_TOKEN: "must-not-pass",
    PAGER_KEY: "passed",
  };
  const r = await sendTo(
    commandChannel({ command: ["sh", "-c", 'env > "$1"', "sh", out], env: ["PAGER_KEY"] }),
    ENVELOPE,
    { env: (n) => vars[n] },
  );
  assert.equal(r.ok, true);
  const names = Deno.readTextFileSync(out).trim().split("\n").map((l) => l.split("=")[0]);
  assert.ok(!names.includes("GITHUB_TOKEN"), names.join(","));
  for (const n of ["PATH", "HOME", "PAGER_KEY", "THE_LOOP_NOTIFY_EVENT", "THE_LOOP_CHANNEL"]) {
    assert.ok(names.includes(n), n);
  }
});

Deno.test("command: an abort kills it", async () => {
  const ctl = new AbortController();
  const dir = Deno.makeTempDirSync({ prefix: "the-loop-notify-" });
  const started = join(dir, "started");
  const fifo = join(dir, "never");
  // it blocks reading a FIFO nobody writes: only the kill ends it
  new Deno.Command("mkfifo", { args: [fifo] }).outputSync();
  const sent = sendTo(
    commandChannel({ command: ["sh", "-c", 'touch "$1"; cat "$2"', "sh", started, fifo] }),
    ENVELOPE,
    { env: (n) => Deno.env.get(n), signal: ctl.signal },
  );
  // wait for it to start (a file it writes: a condition, bounded), then abort
  for (let i = 0; i < 100_000 && !exists(started); i++) await Deno.stat(dir);
  ctl.abort(new Error("stop"));
  const r = await sent;
  assert.equal(r.ok, false);
  assert.match(r.error!, /killed: stop/);
});

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}
