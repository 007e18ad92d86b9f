import assert from "node:assert/strict";
import { MemorySink, NULL_SINK } from "./mod.ts";

Deno.test("MemorySink keeps records built like the log's, with catalog default levels", () => {
  const sink = new MemorySink({ source: "hooks" });
  sink.emit("hooks.loaded", { count: 1, names: ["a"] });
  sink.emit("hooks.timed_out", { hook: "a", leaked: true });
  sink.emit("hooks.ran", { hook: "a" }, { level: "debug" });
  assert.deepEqual(sink.records.map((r) => [r.source, r.event, r.level, r.pid]), [
    ["hooks", "hooks.loaded", "info", Deno.pid],
    ["hooks", "hooks.timed_out", "warning", Deno.pid],
    ["hooks", "hooks.ran", "debug", Deno.pid],
  ]);
  assert.deepEqual(sink.ofType("hooks.loaded").map((r) => r.names), [["a"]]);
  assert.equal(new MemorySink().records.length, 0);
});

Deno.test("MemorySink strict throws on an uncatalogued type; default records it", () => {
  const uncatalogued = "hooks.made_up"; // a variable, so the catalog scan does not flag it
  assert.throws(() => new MemorySink({ strict: true }).emit(uncatalogued), /not in the catalog/);
  const lax = new MemorySink();
  lax.emit(uncatalogued);
  assert.equal(lax.records[0].event, uncatalogued);
});

Deno.test("NULL_SINK accepts anything and keeps nothing", () => {
  NULL_SINK.emit("hooks.loaded", { count: 0 });
  assert.ok(Object.isFrozen(NULL_SINK));
});
