import assert from "node:assert/strict";
import { UsageError } from "../errors.ts";
import type { EventRecord } from "./mod.ts";
import {
  compileFilter,
  compileLineCheck,
  fnmatchToRegExp,
  normalizeWorkItemRef,
  parseLevel,
  parseSince,
  peekField,
} from "./filter.ts";

Deno.test("fnmatch: *, ?, [...], [!...] and literal specials", () => {
  const m = (p: string, s: string) => fnmatchToRegExp(p).test(s);
  assert.ok(m("hooks.*", "hooks.ran"));
  assert.ok(!m("hooks.*", "xhooks.ran"));
  assert.ok(!m("hooks.*", "hooksXran")); // the dot is literal
  assert.ok(m("hooks.r?n", "hooks.ran"));
  assert.ok(m("hooks.[rd]*", "hooks.decided"));
  assert.ok(!m("hooks.[!rd]*", "hooks.ran"));
  assert.ok(m("hooks.[!rd]*", "hooks.failed"));
  assert.ok(m("a[]]b", "a]b"));
  assert.ok(m("a[b", "a[b")); // an unclosed bracket is literal
  assert.ok(m("(x)+|y", "(x)+|y"));
  assert.ok(m("*", ""));
});

Deno.test("parseSince: relative durations, ISO times (UTC when no offset), errors", () => {
  const now = Date.parse("2026-07-22T12:00:00Z");
  assert.equal(parseSince("30s", now), now - 30_000);
  assert.equal(parseSince("15m", now), now - 900_000);
  assert.equal(parseSince("2h", now), now - 7_200_000);
  assert.equal(parseSince("1d", now), now - 86_400_000);
  assert.equal(parseSince("2026-07-22T10:00:00Z"), Date.parse("2026-07-22T10:00:00Z"));
  assert.equal(parseSince("2026-07-22T10:00:00"), Date.parse("2026-07-22T10:00:00Z"));
  assert.equal(parseSince("2026-07-22T12:00:00+02:00"), Date.parse("2026-07-22T10:00:00Z"));
  assert.equal(parseSince("2026-07-22"), Date.parse("2026-07-22T00:00:00Z"));
  for (const bad of ["yesterday", "2h ago", "-2h", "", "12", "2026-13-45"]) {
    assert.throws(
      () => parseSince(bad, now),
      (e) => e instanceof UsageError && /--since/.test(e.message),
      bad,
    );
  }
});

Deno.test("parseLevel accepts the four levels (and warn), rejects others", () => {
  assert.equal(parseLevel("ERROR"), "error");
  assert.equal(parseLevel("warn"), "warning");
  assert.throws(
    () => parseLevel("fatal"),
    (e) => e instanceof UsageError && /debug, info/.test(e.message),
  );
});

const rec = (o: Partial<EventRecord>): EventRecord =>
  ({
    ts: "2026-07-22T10:00:00.000Z",
    source: "poll",
    event: "x",
    level: "info",
    pid: 1,
    ...o,
  }) as EventRecord;

Deno.test("compileFilter: every criterion must hold; work_item matches a ref, {ref} or endpoint", () => {
  const f = compileFilter({ workItem: "o/r#1" });
  assert.ok(f(rec({ work_item: "o/r#1" })));
  assert.ok(f(rec({ work_item: { ref: "o/r#1", kind: "issue" } })));
  assert.ok(f(rec({ endpoint: "o/r#1" })));
  assert.ok(!f(rec({ work_item: "o/r#2" })));
  assert.ok(!f(rec({})));
  const lv = compileFilter({ level: "warning" });
  assert.deepEqual(
    ["debug", "info", "warning", "error"].map((l) => lv(rec({ level: l as "info" }))),
    [false, false, true, true],
  );
  const since = compileFilter({ since: Date.parse("2026-07-22T10:00:00Z") });
  assert.ok(since(rec({ ts: "2026-07-22T10:00:00.000Z" })));
  assert.ok(!since(rec({ ts: "2026-07-22T09:59:59.999Z" })));
  assert.ok(!since(rec({ ts: "garbage" })));
  const all = compileFilter({ types: ["a.*", "b"], source: "poll", deliveryId: "d1" });
  assert.ok(all(rec({ event: "b", delivery_id: "d1" })));
  assert.ok(!all(rec({ event: "b", delivery_id: "d2" })));
  assert.ok(!all(rec({ event: "a.x", source: "cli", delivery_id: "d1" })));
  assert.ok(all(rec({ event: "a.x", delivery_id: "d1" })));
});

Deno.test("--work-item: a bare OWNER/REPO#N or HOST/OWNER/REPO#N means its github: ref", () => {
  assert.equal(normalizeWorkItemRef("acme/app#12"), "github:acme/app#12");
  assert.equal(
    normalizeWorkItemRef("ghe.example.com/acme/app#12"),
    "github:ghe.example.com/acme/app#12",
  );
  assert.equal(
    normalizeWorkItemRef("ghe.example.com:8443/acme/app#12"),
    "github:ghe.example.com:8443/acme/app#12",
  );
  for (
    const same of [
      "github:acme/app#12",
      "gitlab:acme/app#12",
      "issue-7",
      "acme/app#0",
      "https://h/x",
    ]
  ) {
    assert.equal(normalizeWorkItemRef(same), same);
  }
  const bare = compileFilter({ workItem: "acme/app#12" });
  assert.ok(bare(rec({ work_item: "github:acme/app#12" })));
  assert.ok(bare(rec({ work_item: { ref: "github:acme/app#12" } })));
  assert.ok(bare(rec({ work_item: "acme/app#12" }))); // an old record without the prefix
  assert.ok(!bare(rec({ work_item: "github:ghe.example.com/acme/app#12" })));
  assert.ok(!bare(rec({ work_item: "github:acme/app#1" })));
  const full = compileFilter({ workItem: "github:acme/app#12" });
  assert.ok(full(rec({ work_item: "acme/app#12" })));
  assert.ok(full(rec({ work_item: "github:acme/app#12" })));
  const host = compileFilter({ workItem: "ghe.example.com/acme/app#12" });
  assert.ok(host(rec({ work_item: "github:ghe.example.com/acme/app#12" })));
  assert.ok(!host(rec({ work_item: "github:acme/app#12" })));
});

Deno.test("peekField reads only what is certain; the line check never rejects a match", () => {
  const line = JSON.stringify(rec({ event: "hooks.ran", work_item: "o/r#1" }));
  assert.equal(peekField(line, "event"), "hooks.ran");
  assert.equal(peekField(line, "level"), "info");
  // a nested object before the key, other spacing, escapes: unknown, so the line gets parsed
  assert.equal(peekField('{"x":{"event":"a"},"event":"b"}', "event"), undefined);
  assert.equal(peekField('{"event": "a"}', "event"), undefined);
  assert.equal(peekField('{"event":"a\\"b"}', "event"), undefined);
  assert.equal(peekField('{"k":"\\"event":"a"}', "event"), undefined);
  const check = compileLineCheck({ types: ["hooks.*"], level: "warning", source: "hooks" });
  assert.equal(check(line), false);
  assert.equal(
    check(JSON.stringify(rec({ event: "hooks.ran", level: "error", source: "hooks" }))),
    true,
  );
  assert.equal(check('{"x":{"event":"a"},"event":"hooks.ran"}'), true); // not certain: parse it
  assert.equal(check("not json"), true); // parsed, and counted as malformed
});
