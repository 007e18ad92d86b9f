/**
 * `the-loop notify test` end to end: the real CLI, spawned with a config whose channels point
 * at real loopback endpoints (`Deno.serve` on 127.0.0.1) and a command channel; what it prints,
 * its exit code, the signed envelope the endpoint got, and that no secret is printed or logged.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cli, cliSchema, tree } from "./_test_utils.ts";
import { endpoint, hmacHex } from "../notify/_test_utils.ts";

const SECRET = "whsec-e2e-SECRET-value";
const SLACK_PATH = "/services/T1/B1/E2ESLACKTOKEN";

function project(ok: string, bad: string): string {
  return tree({
    "c.yaml": [
      "eventLog: { path: events.jsonl }",
      "collaborators:",
      "  - handle: '@me'",
      "    roles: [engineer]",
      "    notifications:",
      "      channels:",
      "        - { type: slack, via: api, config: { channel-list: ['#ops'] } }",
      `        - { name: signed, type: webhook, url: '${ok}/in?k=E2EQUERYTOKEN', secretEnv: HOOK_SECRET }`,
      `        - { name: broken, type: webhook, url: '${bad}/x' }`,
      "        - { name: script, type: command, command: [sh, -c, 'cat > got.json'] }",
      `        - { name: spare, type: webhook, url: '${ok}/spare', enabled: false }`,
    ].join("\n") + "\n",
  });
}

Deno.test("notify test: prints each channel's answer, exit 1 on a 500; the signature verifies", async () => {
  const ok = endpoint(200);
  const bad = endpoint(500);
  try {
    const cwd = project(ok.url, bad.url);
    const env = { HOOK_SECRET: SECRET, THE_LOOP_SLACK_WEBHOOK_URL: `${ok.url}${SLACK_PATH}` };
    const r = await cli(["-c", "c.yaml", "notify", "test"], { cwd, env });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const lines = r.stdout.trim().split("\n");
    assert.match(lines[0], /^CHANNEL\s+TYPE\s+RESULT$/);
    assert.match(lines[1], /^me-slack\s+slack\s+HTTP 200$/);
    assert.match(lines[2], /^signed\s+webhook\s+HTTP 200$/);
    assert.match(
      lines[3],
      /^broken\s+webhook\s+failed: POST to http:\/\/127\.0\.0\.1:\d+ answered HTTP 500$/,
    );
    assert.match(lines[4], /^script\s+command\s+exit 0$/);
    assert.equal(lines.length, 5, "the disabled channel is not tested");
    assert.match(r.stderr, /1 of 4 channels failed: broken/);
    // the webhook's envelope, signed with the secret
    const signed = ok.taken.find((t) => t.path.startsWith("/in"))!;
    const envelope = JSON.parse(signed.text);
    assert.equal(envelope.event, "test");
    assert.equal(
      signed.headers.get("x-the-loop-signature-256"),
      `sha256=${await hmacHex(SECRET, signed.body)}`,
    );
    const slack = ok.taken.find((t) => t.path === SLACK_PATH)!;
    assert.equal(JSON.parse(slack.text).channel, "#ops");
    assert.equal(JSON.parse(Deno.readTextFileSync(join(cwd, "got.json"))).event, "test");
    // no secret, no URL path or query, printed or logged
    const log = Deno.readTextFileSync(join(cwd, "events.jsonl"));
    const records = log.trim().split("\n").map((l) => JSON.parse(l));
    // the four sends run at once: their records come in any order
    assert.deepEqual(records.map((x) => `${x.event} ${x.channel}`).sort(), [
      "notify.failed broken",
      "notify.sent me-slack",
      "notify.sent script",
      "notify.sent signed",
    ]);
    for (const s of [SECRET, "E2ESLACKTOKEN", "E2EQUERYTOKEN", SLACK_PATH]) {
      assert.ok(!(r.stdout + r.stderr + log).includes(s), s);
    }
    // one channel by name, even a disabled one: exit 0
    const one = await cli(["-c", "c.yaml", "notify", "test", "--channel", "spare"], { cwd, env });
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, /^spare\s+webhook\s+HTTP 200$/m);
  } finally {
    await ok.close();
    await bad.close();
  }
});

Deno.test("notify test --format json: the envelope, validated by its schema", async () => {
  const ok = endpoint(200);
  const bad = endpoint(500);
  try {
    const cwd = project(ok.url, bad.url);
    const env = { HOOK_SECRET: SECRET };
    const check = await cliSchema("notify-test");
    const r = await cli(["-c", "c.yaml", "notify", "test", "--format", "json"], { cwd, env });
    assert.equal(r.code, 1);
    const doc = JSON.parse(r.stdout);
    check(doc);
    assert.equal(doc.ok, false);
    const by = Object.fromEntries(doc.channels.map((c: { channel: string }) => [c.channel, c]));
    assert.equal(by["me-slack"].ok, false);
    assert.match(by["me-slack"].error, /^THE_LOOP_SLACK_WEBHOOK_URL is not set/);
    assert.equal(by.signed.status, 200);
    assert.equal(by.broken.status, 500);
    assert.equal(by.script.exitCode, 0);
    const passing = await cli(
      ["-c", "c.yaml", "notify", "test", "--channel", "signed", "--format", "json"],
      { cwd, env },
    );
    assert.equal(passing.code, 0, passing.stderr);
    check(JSON.parse(passing.stdout));
    // a broken config still answers in JSON
    const broken = tree({ "c.yaml": "collaborators: [ { handle: '@me' } ]\n" });
    const failed = await cli(["-c", "c.yaml", "notify", "test", "--format", "json"], {
      cwd: broken,
    });
    assert.equal(failed.code, 1);
    check(JSON.parse(failed.stdout));
  } finally {
    await ok.close();
    await bad.close();
  }
});

Deno.test("notify test: an unknown --channel is a usage error listing the names; none configured exits 1", async () => {
  const cwd = project("http://127.0.0.1:9", "http://127.0.0.1:9");
  const r = await cli(["-c", "c.yaml", "notify", "test", "--channel", "nope"], { cwd });
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /no channel is named "nope"; the channels are: me-slack, signed, broken, script, spare/,
  );
  const empty = tree({ "c.yaml": "collaborators: []\n" });
  const none = await cli(["-c", "c.yaml", "notify", "test"], { cwd: empty });
  assert.equal(none.code, 1);
  assert.match(
    none.stderr,
    /no notification channel in .*: add one under collaborators\[\]\.notifications\.channels/,
  );
});
