import assert from "node:assert/strict";
import { join } from "node:path";
import { ghProgramFromConfig, resolveToken, TokenMissingError } from "./mod.ts";
import type { CliConfig } from "../config/types.ts";

const envOf = (vars: Record<string, string>) => (name: string) => vars[name];
const NONE = envOf({});

/** A directory with an executable `name` that prints `token` for `auth token [--hostname H]`. */
async function fakeGh(name: string, script: string): Promise<string> {
  const dir = await Deno.makeTempDir();
  const path = join(dir, name);
  await Deno.writeTextFile(path, `#!/bin/sh\n${script}\n`);
  await Deno.chmod(path, 0o755);
  return dir;
}

async function withPath<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const old = Deno.env.get("PATH") ?? "";
  Deno.env.set("PATH", `${dir}:${old}`);
  try {
    return await fn();
  } finally {
    Deno.env.set("PATH", old);
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("the token comes from github.tokenEnv, then GH_TOKEN, then GITHUB_TOKEN", async () => {
  const all = { MY_TOKEN: "a", GH_TOKEN: "b", GITHUB_TOKEN: "c" };
  const gh = "";
  assert.deepEqual(await resolveToken({ tokenEnv: "MY_TOKEN", env: envOf(all), ghProgram: gh }), {
    token: "a",
    source: "env:MY_TOKEN",
  });
  const { MY_TOKEN: _, ...two } = all;
  assert.equal(
    (await resolveToken({ tokenEnv: "MY_TOKEN", env: envOf(two), ghProgram: gh })).source,
    "env:GH_TOKEN",
  );
  assert.equal(
    (await resolveToken({
      tokenEnv: "MY_TOKEN",
      env: envOf({ GITHUB_TOKEN: "c", GH_TOKEN: " " }),
      ghProgram: gh,
    }))
      .source,
    "env:GITHUB_TOKEN",
  );
});

Deno.test("without a variable, the token is `gh auth token`'s output (gh on PATH)", async () => {
  const dir = await fakeGh(
    "gh",
    '[ "$1 $2" = "auth token" ] && echo "gho_fromGhCli0123456789abcdef" || exit 1',
  );
  await withPath(dir, async () => {
    assert.deepEqual(await resolveToken({ env: NONE }), {
      token: "gho_fromGhCli0123456789abcdef",
      source: "gh",
    });
  });
});

Deno.test("the program for `gh auth token` is configurable; Enterprise hosts are asked by name", async () => {
  const dir = await fakeGh(
    "my-gh",
    '[ "$1 $2 $3 $4" = "auth token --hostname ghe.example.com" ] && echo ent0123 || exit 1',
  );
  await withPath(dir, async () => {
    const got = await resolveToken({
      env: NONE,
      ghProgram: "my-gh",
      apiUrl: "https://ghe.example.com/api/v3",
    });
    assert.deepEqual(got, { token: "ent0123", source: "gh" });
  });
});

Deno.test("no token anywhere: an error naming the three ways to give one", async () => {
  const failing = await fakeGh("gh", "echo 'not logged in' >&2; exit 1");
  await withPath(failing, async () => {
    await assert.rejects(resolveToken({ tokenEnv: "MY_TOKEN", env: NONE }), (e: Error) => {
      assert.ok(e instanceof TokenMissingError);
      assert.match(e.message, /MY_TOKEN/);
      assert.match(e.message, /GH_TOKEN or GITHUB_TOKEN/);
      assert.match(e.message, /gh auth login/);
      return true;
    });
  });
  await assert.rejects(
    resolveToken({ env: NONE, ghProgram: "/nonexistent/gh-not-here" }),
    TokenMissingError,
  );
});

Deno.test("ghProgramFromConfig: the first ghBinary set to something else than gh", () => {
  const config = (sources: string[], control = "gh") =>
    ({
      polling: { sources: sources.map((ghBinary) => ({ ghBinary })) },
      webhooks: {
        ghWebhook: {
          routing: {
            control: { ghBinary: control },
            reactions: { ghBinary: "gh" },
            announce: { ghBinary: "gh" },
          },
        },
      },
    }) as unknown as CliConfig;
  assert.equal(ghProgramFromConfig(config([])), "gh");
  assert.equal(ghProgramFromConfig(config(["gh"], "/opt/gh")), "/opt/gh");
  assert.equal(ghProgramFromConfig(config(["/usr/local/bin/gh"], "/opt/gh")), "/usr/local/bin/gh");
});

Deno.test("legacy ghBinary keys that disagree are warned about; agreeing ones are not", async () => {
  const { ghProgramFromConfig, ghProgramWarnings } = await import("./token.ts");
  const config = (sources: string[], reactions = "gh") =>
    ({
      polling: { sources: sources.map((ghBinary) => ({ ghBinary })) },
      webhooks: { ghWebhook: { routing: { reactions: { ghBinary: reactions } } } },
    }) as unknown as Parameters<typeof ghProgramWarnings>[0];
  assert.deepEqual(ghProgramWarnings(config(["gh"])), []);
  assert.deepEqual(ghProgramWarnings(config(["/opt/gh", "/opt/gh"])), []);
  assert.equal(ghProgramFromConfig(config(["gh"], "/usr/local/bin/gh")), "/usr/local/bin/gh");
  const [warning] = ghProgramWarnings(config(["/opt/gh"], "/usr/local/bin/gh"));
  assert.match(
    warning,
    /2 different programs \(\/opt\/gh, \/usr\/local\/bin\/gh\); only "\/opt\/gh"/,
  );
});
