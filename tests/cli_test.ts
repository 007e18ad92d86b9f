import assert from "node:assert/strict";
import { cli } from "./_cli.ts";
import denoJson from "../deno.json" with { type: "json" };
import { VERSION } from "../version.ts";

Deno.test("--version prints the version from deno.json", async () => {
  assert.equal(VERSION, denoJson.version);
  const r = await cli(["--version"]);
  assert.equal(r.code, 0);
  assert.equal(r.stdout.trim(), VERSION);
});

Deno.test("--help lists every command and exits 0", async () => {
  const r = await cli(["--help"]);
  assert.equal(r.code, 0);
  for (const c of ["init", "config", "events"]) assert.match(r.stdout, new RegExp(`\\n  ${c}\\b`));
  assert.match(r.stdout, /-c, --config <path>/);
});

Deno.test("no command shows help on stderr and exits 2", async () => {
  const r = await cli([]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /Usage: the-loop/);
  assert.equal(r.stdout, "");
});

Deno.test("an unknown command is a one-line usage error with a suggestion, exit 2", async () => {
  const r = await cli(["evnts"]);
  assert.equal(r.code, 2);
  assert.equal(r.stderr.trim().split("\n").length, 1);
  assert.match(r.stderr, /unknown command 'evnts' \(did you mean events\?\)/);
});

Deno.test("an unknown flag is a one-line usage error, exit 2", async () => {
  const r = await cli(["events", "--limt", "3"]);
  assert.equal(r.code, 2);
  assert.equal(r.stderr.trim().split("\n").length, 1);
  assert.match(r.stderr, /unknown option '--limt' \(did you mean --limit\?\)/);
});
