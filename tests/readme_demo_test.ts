/**
 * The README's offline poller walk-through works as written: `deno task demo-github` serves the
 * demo world, and with the two config lines the README names, `poll start --dry-run` shows the
 * start keyword on octo/demo#1 and `poll start --once` then hands it over.
 */
import assert from "node:assert/strict";
import denoJson from "../deno.json" with { type: "json" };
import { cli, ROOT, tree } from "./_test_utils.ts";

Deno.test("the README's demo-github walk-through: dry run, one cycle, then a 304", async () => {
  const readme = await Deno.readTextFile(`${ROOT}README.md`);
  assert.match(readme, /authorizedUsers: \[you\]/);
  assert.match(readme, /sources: \[\{ provider: github, repos: \[octo\/demo\] \}\]/);
  const task = denoJson.tasks["demo-github"].split(/\s+/).slice(1); // without "deno"
  const demo = new Deno.Command(Deno.execPath(), {
    args: [...task.map((a) => (a.endsWith(".ts") ? `${ROOT}${a}` : a)), "--port", "0"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = demo.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!/GITHUB_TOKEN=demo/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`demo-github exited: ${out}`);
    out += value;
  }
  const apiUrl = /GITHUB_API_URL=(\S+)/.exec(out)![1];
  try {
    const cwd = tree({
      ".the-loop/cli-config.yaml": [
        "webhooks: { ghWebhook: { routing: { authorizedUsers: [you] } } }",
        "polling:",
        "  sources: [{ provider: github, repos: [octo/demo] }]",
        "",
      ].join("\n"),
    });
    const env = { GITHUB_API_URL: apiUrl, GITHUB_TOKEN: "demo" };
    const dry = await cli(["poll", "start", "--dry-run"], { cwd, env });
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /2 labelled item\(s\) seen, 1 hand-over\(s\)/);
    assert.match(dry.stdout, /github:octo\/demo#1\s+comment\s+you\s+control keyword/);
    const once = await cli(["poll", "start", "--once"], { cwd, env });
    assert.equal(once.code, 0, once.stderr);
    const again = await cli(["poll", "start", "--once"], { cwd, env });
    assert.equal(again.code, 0, again.stderr);
    const status = await cli(["poll", "status"], { cwd, env });
    assert.match(status.stdout, /requests\s+1 \(1 answered 304\)/);
  } finally {
    demo.kill("SIGINT");
    await demo.status;
    await reader.cancel().catch(() => {});
  }
});
