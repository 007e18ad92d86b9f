import assert from "node:assert/strict";
import { parseWorkItem, slugOf, workItem } from "./work_item.ts";

Deno.test("work item refs parse, print and slug for github.com and Enterprise", () => {
  const a = parseWorkItem("github:octo/repo#15")!;
  assert.deepEqual([a.host, a.owner, a.repo, a.number, a.ref], [
    "github.com",
    "octo",
    "repo",
    15,
    "github:octo/repo#15",
  ]);
  assert.deepEqual(slugOf(a), "github-octo-repo-15");
  const e = parseWorkItem("github:ghe.example.com/octo/repo#3")!;
  assert.deepEqual(e.ref, "github:ghe.example.com/octo/repo#3");
  assert.deepEqual(slugOf(e), "github-ghe.example.com-octo-repo-3");
  assert.deepEqual(
    workItem({ owner: "octo", repo: "repo", number: 15, host: "GITHUB.COM" }).ref,
    a.ref,
  );
});

Deno.test("garbage refs are not work items", () => {
  for (
    const bad of [
      "octo/repo#1",
      "github:octo/repo",
      "github:octo/repo#0",
      "github:o/r#x",
      "",
      "github:a/b/c/d#1",
    ]
  ) assert.deepEqual(parseWorkItem(bad), undefined, bad);
  assert.throws(() => workItem({ owner: "o w", repo: "r", number: 1 }), RangeError);
});
