// A read or write grant names real paths: a symlink inside a granted directory (git can carry
// one) must not reach past it, however it is spelled. Attacks go through the real loader and
// worker (and hook-host child), against real files and links.
import assert from "node:assert/strict";
import type { Executor } from "../../executor.ts";
import type { Grants } from "./permissions.ts";
import { loadFixture } from "./_test_utils.ts";

const T = { timeoutMs: 10_000 };
const CONFIG = "polling:\n  intervalSeconds: 60\n";
const SECRET = "secret";

/**
 * A config directory: `cli-config.yaml`, `outside/secret.txt`, and `data/` with links at
 * several depths that lead out of it (to the secret, to the config, to `/`), a chain, a
 * dangling link, and a link that stays inside; `alias` links to the real directory `real/`.
 */
async function plant(): Promise<string> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "hook-links-" }));
  await Deno.writeTextFile(`${base}/cli-config.yaml`, CONFIG);
  await Deno.mkdir(`${base}/outside`);
  await Deno.writeTextFile(`${base}/outside/secret.txt`, SECRET);
  await Deno.mkdir(`${base}/data/sub`, { recursive: true });
  await Deno.mkdir(`${base}/data/a/b`, { recursive: true });
  await Deno.writeTextFile(`${base}/data/in.txt`, "inside");
  await Deno.writeTextFile(`${base}/data/sub/ok.txt`, "ok");
  await Deno.symlink(`${base}/outside/secret.txt`, `${base}/data/link`);
  await Deno.symlink("../../../outside/secret.txt", `${base}/data/a/b/link`);
  await Deno.symlink("/", `${base}/data/d`);
  await Deno.symlink("../cli-config.yaml", `${base}/data/cfg`);
  await Deno.symlink("chain2", `${base}/data/chain1`);
  await Deno.symlink("../outside/secret.txt", `${base}/data/chain2`);
  await Deno.symlink("../outside/new.txt", `${base}/data/dangling`);
  await Deno.symlink("../outside", `${base}/data/outdir`);
  await Deno.symlink("sub/ok.txt", `${base}/data/inlink`);
  await Deno.mkdir(`${base}/real`);
  await Deno.writeTextFile(`${base}/real/r.txt`, "real");
  await Deno.symlink("real", `${base}/alias`);
  return base;
}

async function withHook(
  permissions: Grants,
  isolation: "worker" | "process",
  fn: (run: (what: string, path: string, to?: string) => Promise<string>, base: string) => unknown,
): Promise<void> {
  const base = await plant();
  let hook: Executor | undefined;
  try {
    hook = await loadFixture("grants_fs.ts", { baseDir: base, permissions, isolation });
    const h = hook;
    await fn(async (what, path, to) => {
      const { answer } = await h.call("work_item_start", { what, path, to }, T);
      return String(answer?.reason);
    }, base);
  } finally {
    await hook?.close();
    await Deno.remove(base, { recursive: true });
  }
}

const refusedRead = /^denied:NotCapable: .*leads to ".*", outside the hook's read grants/;
const refusedWrite = /^denied:NotCapable: .*leads to ".*", outside the hook's write grants/;

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

async function readsRefused(isolation: "worker" | "process") {
  await withHook({ read: ["./data"] }, isolation, async (run, base) => {
    const via = [
      `${base}/data/link`,
      `${base}/data/a/b/link`,
      `${base}/data/d${base}/outside/secret.txt`,
      `${base}/data/chain1`,
      `${base}/data/outdir/secret.txt`,
    ];
    for (const path of via) assert.match(await run("read", path), refusedRead, path);
    assert.match(await run("read", `${base}/data/cfg`), refusedRead);
    // the control: the same file read through no link is refused by Deno itself
    assert.match(await run("read", `${base}/outside/secret.txt`), /^denied:NotCapable: /);
  });
}

Deno.test("read grant: links at any depth, a dir link to /, a chain cannot read past it", () =>
  readsRefused("worker"));

Deno.test("read grant: every spelling of a read through a link is refused", async () => {
  await withHook({ read: ["./data"], write: ["./data"] }, "worker", async (run, base) => {
    const link = `${base}/data/link`;
    for (const what of ["readSync", "readBytes", "readUrl", "openSync", "fetch", "fetchUrl"]) {
      assert.match(await run(what, link), refusedRead, what);
    }
    for (const what of ["stat", "realPath"]) assert.match(await run(what, link), refusedRead, what);
    assert.match(await run("readDir", `${base}/data/d`), refusedRead, "readDir /");
    assert.match(await run("readDirSync", `${base}/data/outdir`), refusedRead, "readDirSync");
    assert.match(await run("copyFrom", link, `${base}/data/copy.txt`), refusedRead, "copyFile");
    assert.equal(await exists(`${base}/data/copy.txt`), false);
    // a hook that patches built-ins and forges a grant-everything init changes nothing
    assert.match(await run("poisoned", link), refusedRead, "poisoned");
    assert.equal(await run("read", `${base}/data/in.txt`), "ok:inside");
  });
});

Deno.test("a refusal names the path, where it leads, and the grants", async () => {
  await withHook({ read: ["./data"] }, "worker", async (run, base) => {
    assert.equal(
      await run("read", `${base}/data/cfg`),
      `denied:NotCapable: Deno.readTextFile(): "${base}/data/cfg" leads to ` +
        `"${base}/cli-config.yaml", outside the hook's read grants (${base}/data): a grant ` +
        "covers the real paths under it, and a symlink in it does not widen it; grant the " +
        "target itself in the entry's permissions.read if the hook should reach it",
    );
  });
});

Deno.test("a unix socket reached through a link is refused; one inside connects", async () => {
  const grants = { read: ["./data"], write: ["./data"], net: true };
  await withHook(grants, "worker", async (run, base) => {
    const servers = [`${base}/outside/sock`, `${base}/data/in.sock`].map((path) =>
      Deno.listen({ transport: "unix", path })
    );
    const accepting = servers.map(async (server) => {
      for await (const conn of server) conn.close();
    });
    try {
      await Deno.symlink("../outside/sock", `${base}/data/sock`);
      assert.match(await run("connect", `${base}/data/sock`), refusedRead);
      assert.equal(await run("connect", `${base}/data/in.sock`), "ok:unix");
    } finally {
      for (const server of servers) server.close();
      await Promise.allSettled(accepting);
    }
  });
});

async function writesRefused(grants: Grants, isolation: "worker" | "process") {
  await withHook(grants, isolation, async (run, base) => {
    const tries: [string, string][] = [
      ["append", `${base}/data/cfg`],
      ["appendSync", `${base}/data/link`],
      ["openAppend", `${base}/data/a/b/link`],
      ["appendUrl", `${base}/data/chain1`],
      ["truncate", `${base}/data/cfg`],
      ["write", `${base}/data/dangling`],
      ["openWriteSync", `${base}/data/d${base}/outside/made.txt`],
      ["mkdir", `${base}/data/outdir/newdir`],
      ["tempIn", `${base}/data/outdir`],
    ];
    for (const [what, path] of tries) {
      assert.match(await run(what, path), refusedWrite, `${what} ${path}`);
    }
    assert.equal(await Deno.readTextFile(`${base}/cli-config.yaml`), CONFIG);
    assert.equal(await Deno.readTextFile(`${base}/outside/secret.txt`), SECRET);
    assert.deepEqual(
      (await Array.fromAsync(Deno.readDir(`${base}/outside`))).map((e) => e.name),
      ["secret.txt"],
    );
  });
}

Deno.test("write grant: writing through a link leaves its target unchanged", () =>
  writesRefused({ write: ["./data"] }, "worker"));

Deno.test("read+write grant: writing through a link leaves its target unchanged", () =>
  writesRefused({ read: ["./data"], write: ["./data"] }, "worker"));

Deno.test("inside the grant: files, links that stay inside, a granted link to a dir", async () => {
  const grants = { read: ["./data", "./alias"], write: ["./data", "./alias"] };
  await withHook(grants, "worker", async (run, base) => {
    assert.equal(await run("read", `${base}/data/in.txt`), "ok:inside");
    assert.equal(await run("read", `${base}/data/inlink`), "ok:ok");
    assert.equal(await run("fetch", `${base}/data/in.txt`), "ok:inside");
    assert.equal(await run("readDir", `${base}/data/sub`), "ok:ok.txt");
    assert.equal(await run("lstat", `${base}/data/link`), "ok:true");
    assert.equal(await run("readLink", `${base}/data/link`), `ok:${base}/outside/secret.txt`);
    assert.equal(await run("append", `${base}/data/inlink`), "ok:undefined");
    assert.equal(await Deno.readTextFile(`${base}/data/sub/ok.txt`), "ok+hook");
    assert.equal(await run("write", `${base}/data/new.txt`), "ok:undefined");
    assert.equal(await Deno.readTextFile(`${base}/data/new.txt`), "hook");
    assert.match(await run("tempIn", `${base}/data`), /^ok:/);
    // removing a link removes the link, not what it leads to
    assert.equal(await run("remove", `${base}/data/link`), "ok:undefined");
    assert.equal(await exists(`${base}/data/link`), false);
    assert.equal(await Deno.readTextFile(`${base}/outside/secret.txt`), SECRET);
    // a granted path that is itself a link: both its name and its real path work
    assert.equal(await run("read", `${base}/alias/r.txt`), "ok:real");
    assert.equal(await run("read", `${base}/real/r.txt`), "ok:real");
    assert.equal(await run("append", `${base}/alias/r.txt`), "ok:undefined");
    assert.equal(await Deno.readTextFile(`${base}/real/r.txt`), "real+hook");
  });
});

Deno.test("isolation: process: a read through a link is refused", () => readsRefused("process"));

Deno.test("isolation: process: a write through a link leaves its target unchanged", () =>
  writesRefused({ write: ["./data"] }, "process"));

Deno.test("isolation: process: a granted link to a dir works under both names", async () => {
  await withHook({ read: ["./alias", "./data"] }, "process", async (run, base) => {
    assert.equal(await run("read", `${base}/alias/r.txt`), "ok:real");
    assert.equal(await run("read", `${base}/real/r.txt`), "ok:real");
    assert.equal(await run("read", `${base}/data/inlink`), "ok:ok");
  });
});
