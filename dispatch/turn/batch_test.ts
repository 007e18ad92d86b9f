import assert from "node:assert/strict";
import { Deferred, until } from "../_test_utils.ts";
import { Deliveries, type Pending, type Sent } from "./batch.ts";
import type { Handled, Turn } from "./turn.ts";
import type { SessionRecord } from "../../state/registry.ts";
import type { HostedSession } from "../seams.ts";
import type { RoutedEvent } from "../types.ts";

const REF = "github:octo/repo#1";

/** A delivery of `id` into REF's session (only what `Deliveries` looks at). */
function item(id: string): Omit<Pending, "resolve"> {
  return {
    turn: { ref: REF } as Turn,
    live: {} as SessionRecord,
    event: { deliveryId: id } as RoutedEvent,
    prompt: id,
  };
}

const ids = (batch: { event: RoutedEvent }[]) => batch.map((p) => p.event.deliveryId);

Deno.test("the next batch goes in while the last one's note is written; an outcome waits for its note", async () => {
  const pasted: string[][] = [];
  const notes: { ids: string[]; done: Deferred }[] = [];
  const deliveries = new Deliveries({
    run: (batch) => {
      pasted.push(ids(batch));
      return Promise.resolve(batch.map((pending): Sent => ({
        pending,
        hosted: {} as HostedSession,
        batch: batch.length,
      })));
    },
    note: async (sent) => {
      const done = new Deferred();
      notes.push({ ids: ids(sent.map((s) => s.pending)), done });
      await done.promise;
      for (const s of sent) s.pending.resolve({ outcome: { status: "delivered" } } as Handled);
    },
    limit: () => Infinity,
  });
  const settled: string[] = [];
  const add = (id: string) => deliveries.add(item(id)).then(() => void settled.push(id));
  const outs = [add("a")];
  await until(() => notes.length === 1, "a's note under way");
  outs.push(add("b"));
  await until(() => pasted.length === 2, "b pasted while a's note is written");
  outs.push(add("c"));
  await until(() => pasted.length === 3, "c pasted too");
  assert.deepEqual(pasted, [["a"], ["b"], ["c"]]);
  assert.deepEqual(settled, [], "nothing is settled before its note");
  assert.ok(deliveries.has(REF, "a") && deliveries.has(REF, "c"), "unnoted ids are still held");
  assert.deepEqual(deliveries.size, { running: 3, waiting: 0 });
  let drained = false;
  const drain = deliveries.drain(REF).then(() => drained = true);
  notes[0].done.resolve();
  await until(() => notes.length === 2, "the next note");
  assert.deepEqual(notes.map((n) => n.ids), [["a"], ["b", "c"]], "b and c noted together");
  await until(() => settled.length === 1, "a settled");
  assert.deepEqual(settled, ["a"]);
  assert.equal(drained, false, "drain waits for the notes");
  notes[1].done.resolve();
  await Promise.all([...outs, drain]);
  assert.deepEqual(settled, ["a", "b", "c"]);
  assert.equal(deliveries.has(REF, "c"), false);
  assert.deepEqual(deliveries.size, { running: 0, waiting: 0 });
});
