import assert from "node:assert/strict";
import { realTarget, within } from "./_real_path.ts";
import { answer } from "./_fs_gate.ts";

async function tree(): Promise<string> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "real-path-" }));
  await Deno.mkdir(`${base}/data/sub`, { recursive: true });
  await Deno.mkdir(`${base}/out`);
  await Deno.writeTextFile(`${base}/out/x`, "x");
  await Deno.symlink("../out", `${base}/data/up`); // relative, to a dir
  await Deno.symlink(`${base}/out/x`, `${base}/data/sub/abs`); // absolute, deeper
  await Deno.symlink("two", `${base}/data/one`); // a chain…
  await Deno.symlink("../out/missing", `${base}/data/two`); // …ending dangling
  await Deno.symlink("loop", `${base}/data/loop`);
  return base;
}

Deno.test("realTarget: links at any depth, chains, dangling links, missing tails", async () => {
  const base = await tree();
  try {
    const follow = { follow: true };
    assert.equal(realTarget(`${base}/data/up/x`, follow), `${base}/out/x`);
    assert.equal(realTarget(`${base}/data/sub/abs`, follow), `${base}/out/x`);
    assert.equal(realTarget(`${base}/data/one`, follow), `${base}/out/missing`);
    assert.equal(realTarget(`${base}/data/up/new/deeper`, follow), `${base}/out/new/deeper`);
    assert.equal(realTarget(`${base}/data/sub/new.txt`, follow), `${base}/data/sub/new.txt`);
    // not following the last link: the link itself, under its parent's real path
    assert.equal(realTarget(`${base}/data/sub/abs`, { follow: false }), `${base}/data/sub/abs`);
    assert.equal(realTarget(`${base}/data/up/x`, { follow: false }), `${base}/out/x`);
    assert.throws(() => realTarget(`${base}/data/loop`, follow), /too many levels/);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("within: component-wise, not a string prefix", () => {
  assert.equal(within("/a/data/x", "/a/data"), true);
  assert.equal(within("/a/data", "/a/data"), true);
  assert.equal(within("/a/database", "/a/data"), false);
  assert.equal(within("/a", "/a/data"), false);
  assert.equal(within("/a/..x", "/a"), true);
  assert.equal(within("/anything", "/"), true);
});

Deno.test("the gate's answer: pass outside the grants as written, ok or refused inside", async () => {
  const base = await tree();
  try {
    const data = `${base}/data`;
    const grants = {
      r: { scope: "some" as const, lexical: [data], real: [data] },
      w: { scope: "none" as const, lexical: [], real: [] },
    };
    const ask = (path: string, form = "p") =>
      answer(`r\x001\x00${form}\x00op()\x00${path}`, grants);
    assert.equal(ask(`${base}/out/x`), `pass\0${base}/out/x`);
    assert.equal(ask(`${data}/sub/../../out/x`), `pass\0${base}/out/x`);
    assert.equal(ask(`${data}/sub/new`), `ok\0${data}/sub/new`);
    assert.match(ask(`${data}/up/x`), /^refused\0op\(\): ".*\/data\/up\/x" leads to ".*\/out\/x"/);
    assert.equal(ask(`file://${data}/sub`, "f"), `ok\0file://${data}/sub`);
    assert.match(ask("http://x/", "u"), /^bad\0op\(\): /);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
