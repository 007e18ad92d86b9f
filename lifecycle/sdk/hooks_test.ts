import assert from "node:assert/strict";
import { POINT_NAMES, POINTS, type SessionSpawn, type WorkItemStart } from "./contract.ts";
import { LifecycleHooks } from "./hooks.ts";

Deno.test("every point in POINTS has a method of the same name on LifecycleHooks", () => {
  const base = new LifecycleHooks();
  for (const p of Object.keys(POINTS)) {
    const m = (LifecycleHooks.prototype as unknown as Record<string, unknown>)[p];
    assert.equal(typeof m, "function", `LifecycleHooks lacks ${p}`);
    assert.equal((m as (c: unknown) => unknown).call(base, {}), undefined, `${p} passes`);
  }
  const methods = Object.getOwnPropertyNames(LifecycleHooks.prototype)
    .filter((n) => !["constructor", "handles", "resolvePath"].includes(n));
  assert.deepEqual(methods.sort(), [...POINT_NAMES].sort(), "no method without a point");
});

Deno.test("the base class handles nothing", () => {
  const base = new LifecycleHooks();
  for (const p of POINT_NAMES) assert.equal(base.handles(p), false, p);
});

class Policy extends LifecycleHooks {
  override work_item_start(_ctx: WorkItemStart) {
    return { proceed: false };
  }
}
class Stricter extends Policy {
  override async session_spawn(ctx: SessionSpawn) {
    return await Promise.resolve({ prompt: ctx.prompt + "!" });
  }
}

Deno.test("handles() reports overridden methods, through the subclass chain", () => {
  const s = new Stricter();
  assert.equal(s.handles("work_item_start"), true, "inherited from Policy");
  assert.equal(s.handles("session_spawn"), true);
  assert.equal(s.handles("phase_changed"), false);
  assert.equal(new Policy().handles("session_spawn"), false);
});

Deno.test("handles() counts a function set on the instance, and nothing that is not a point", () => {
  const h = new LifecycleHooks();
  Object.assign(h, { phase_changed: () => ({ notify: false }), unrelated: () => 1 });
  assert.equal(h.handles("phase_changed"), true);
  assert.equal(h.handles("unrelated"), false);
  assert.equal(h.handles("handles"), false);
  assert.equal(h.handles("constructor"), false);
  Object.assign(h, { session_spawn: "not a function" });
  assert.equal(h.handles("session_spawn"), false);
});

Deno.test("options from the declaration's with: are kept on the instance", () => {
  class Board extends LifecycleHooks {
    board(): unknown {
      return this.options.board;
    }
  }
  assert.equal(new Board({ board: "platform" }).board(), "platform");
  assert.deepEqual(new LifecycleHooks().options, {});
});

Deno.test("resolvePath: relative paths resolve against the config file's directory", () => {
  const h = new LifecycleHooks({}, { name: "x", configDir: "/srv/loop/.the-loop" });
  assert.equal(h.meta.name, "x");
  assert.equal(h.resolvePath("./roster.txt"), "/srv/loop/.the-loop/roster.txt");
  assert.equal(h.resolvePath("../shared/roster.txt"), "/srv/loop/shared/roster.txt");
  assert.equal(h.resolvePath("/etc/roster.txt"), "/etc/roster.txt");
  assert.equal(new LifecycleHooks().resolvePath("a.txt"), "a.txt");
});
