/** `mergeThread`: a thread in the order it was written, even within one second. */
import assert from "node:assert/strict";
import type { ThreadEntry } from "./payloads.ts";
import { mergeThread } from "./thread.ts";

function entry(kind: ThreadEntry["kind"], id: number, createdAt: string): ThreadEntry {
  // node ids as GitHub makes them: base64, whose string order is not the order of creation
  const nodeId = `IC_${btoa(String(id))}`;
  return {
    kind,
    nodeId,
    createdAt,
    updatedAt: createdAt,
    author: "alice",
    body: `c${id}`,
    url: "",
    raw: { id, node_id: nodeId } as unknown as ThreadEntry["raw"],
  };
}

Deno.test("mergeThread: comments of one second stay in creation order (numeric id, not node id)", () => {
  const t = "2026-12-06T10:00:00Z";
  const ids = Array.from({ length: 40 }, (_, i) => 1000 + i * 7);
  // the node ids' string order differs from the ids' (the bug this guards)
  const byNode = [...ids].sort((a, b) => (btoa(String(a)) < btoa(String(b)) ? -1 : 1));
  assert.notDeepEqual(byNode, ids);
  const merged = mergeThread(byNode.map((id) => entry("comment", id, t)));
  assert.deepEqual(merged.map((e) => (e.raw as { id: number }).id), ids);
});

Deno.test("mergeThread: time first, then conversation, review, inline", () => {
  const merged = mergeThread([
    entry("review_comment", 1, "2026-12-06T10:00:01Z"),
    entry("comment", 9, "2026-12-06T10:00:02Z"),
    entry("review", 5, "2026-12-06T10:00:01Z"),
    entry("comment", 7, "2026-12-06T10:00:01Z"),
  ]);
  assert.deepEqual(merged.map((e) => `${e.kind}:${(e.raw as { id: number }).id}`), [
    "comment:7",
    "review:5",
    "review_comment:1",
    "comment:9",
  ]);
});
