import assert from "node:assert/strict";
import {
  toWorkItem,
  WORK_ITEM_FIELDS,
  WorkItemError,
  workItemFromRef,
  type WorkItemOptions,
} from "./work_item.ts";

Deno.test("a github.com ref builds the whole work item", () => {
  assert.deepEqual(workItemFromRef("github:acme/app#42", { kind: "issue" }), {
    ref: "github:acme/app#42",
    provider: "github",
    host: "github.com",
    owner: "acme",
    repo: "app",
    repository: "acme/app",
    number: 42,
    kind: "issue",
    url: "https://github.com/acme/app/issues/42",
    id: "issue-42",
  });
});

Deno.test("a GitHub Enterprise ref is host-qualified in repository and url", () => {
  const w = workItemFromRef("github:GHE.Acme.example/platform/api.v2#7");
  assert.equal(w.host, "ghe.acme.example");
  assert.equal(w.repository, "ghe.acme.example/platform/api.v2");
  assert.equal(w.url, "https://ghe.acme.example/platform/api.v2/issues/7");
  assert.equal(w.ref, "github:ghe.acme.example/platform/api.v2#7");
  assert.equal(w.kind, "");
  assert.equal(w.id, "issue-7");
});

Deno.test("a pull request links to /pull/N, on any host", () => {
  const pr = workItemFromRef("github:acme/app#43", { kind: "pull-request" });
  assert.equal(pr.url, "https://github.com/acme/app/pull/43");
  const ghe = workItemFromRef("github:git.corp:8443/acme/app#5", { kind: "pull-request" });
  assert.equal(ghe.url, "https://git.corp:8443/acme/app/pull/5");
});

Deno.test("an explicit github.com host is the same ref as none", () => {
  const w = workItemFromRef("github:github.com/acme/app#1");
  assert.equal(w.ref, "github:acme/app#1");
  assert.equal(w.repository, "acme/app");
});

Deno.test("a bare issue-N names only the number", () => {
  const w = workItemFromRef("issue-12");
  assert.equal(w.ref, "issue-12");
  assert.equal(w.number, 12);
  assert.equal(w.id, "issue-12");
  assert.equal(w.repository, "");
  assert.equal(w.url, "");
});

Deno.test("malformed refs are refused with what to write instead", () => {
  for (
    const bad of [
      "acme/app#42",
      "github:acme/app",
      "github:acme/app#0",
      "github:acme/app#-1",
      "github:acme#4",
      "github:acme/app#4x",
      "github:/acme/app#4",
      "github:a/b/c/d#1",
      "github:acme/..#1",
      "gitlab:acme/app#1",
      "issue-",
      "",
    ]
  ) {
    assert.throws(() => workItemFromRef(bad), (e: unknown) => {
      assert.ok(e instanceof WorkItemError, bad);
      assert.match(e.message, /malformed work item ref .*expected github:OWNER\/REPO#N/);
      return true;
    });
  }
});

Deno.test("an unknown kind is refused", () => {
  const opts = { kind: "epic" } as unknown as WorkItemOptions;
  assert.throws(() => workItemFromRef("github:acme/app#1", opts), /kind must be/);
});

Deno.test("work items are frozen", () => {
  const w = workItemFromRef("github:acme/app#1");
  assert.ok(Object.isFrozen(w));
  assert.ok(Object.isFrozen(toWorkItem({ ...w })));
});

Deno.test("toWorkItem takes a bare ref string or a whole object", () => {
  const w = workItemFromRef("github:acme/app#42", { kind: "issue" });
  assert.deepEqual(toWorkItem("github:acme/app#42"), { ...w, kind: "" });
  assert.deepEqual(toWorkItem({ ...w, extra: "dropped" }), w);
});

Deno.test("toWorkItem names the field that is missing or mistyped", () => {
  const w = workItemFromRef("github:acme/app#42");
  assert.throws(
    () => toWorkItem({ ...w, number: "42" }),
    /field "number" must be a non-negative integer \(got "42"\)/,
  );
  assert.throws(() => toWorkItem({ ...w, number: 1.5 }), /field "number"/);
  const { url: _, ...noUrl } = w;
  assert.throws(() => toWorkItem(noUrl), /field "url" must be a string \(got nothing\)/);
  assert.throws(() => toWorkItem({ ...w, kind: "epic" }), /field "kind" must be issue/);
  assert.throws(() => toWorkItem(42), /must be an object or a ref string \(got number 42\)/);
  assert.throws(() => toWorkItem(["github:acme/app#1"]), /got an array/);
  assert.throws(() => toWorkItem("acme/app#1"), WorkItemError);
});

Deno.test("WORK_ITEM_FIELDS lists exactly the fields a work item has", () => {
  const w = workItemFromRef("github:acme/app#1");
  assert.deepEqual(WORK_ITEM_FIELDS.map((f) => f.name), Object.keys(w));
});
