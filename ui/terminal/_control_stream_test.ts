import assert from "node:assert/strict";
import { type ControlEvent, ControlReader, unescapeOutput } from "./_control_stream.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

Deno.test("control stream: %output's octal escapes become their bytes, the rest stays as it is", () => {
  assert.deepEqual(
    [...unescapeOutput(enc("a\\015\\012\\134b\\033[31m"))],
    [...enc("a\r\n\\b\x1b[31m")],
  );
  // not three octal digits: left alone
  assert.equal(dec(unescapeOutput(enc("x\\9y\\01"))), "x\\9y\\01");
});

Deno.test("control stream: lines split as bytes, so UTF-8 cut between chunks arrives whole", () => {
  const r = new ControlReader();
  const line = enc("%output %3 é🎉\\015\\012\n");
  const events: ControlEvent[] = [];
  for (const b of line) events.push(...r.push(new Uint8Array([b])));
  assert.equal(events.length, 1);
  const [e] = events;
  assert.equal(e.kind, "output");
  if (e.kind !== "output") return;
  assert.equal(e.pane, "%3");
  assert.equal(dec(e.data), "é🎉\r\n");
});

Deno.test("control stream: a block ends only at the %end of its own time and number", () => {
  const r = new ControlReader();
  const events = r.push(enc([
    "%begin 1700000000 12 1",
    "hello",
    "%end 1700000000 11 1", // a captured line that reads like an end
    "%output %0 not output",
    "%end 1700000000 12 1",
    "%begin 1700000001 13 0",
    "%error 1700000001 13 0",
    "%session-changed $1 loop-x",
    "%exit detached",
    "",
  ].join("\n")));
  assert.deepEqual(events.map((e) => e.kind), ["answer", "answer", "notice", "exit"]);
  const [a, b, n, x] = events;
  assert.ok(a.kind === "answer" && a.ok && a.ours);
  if (a.kind === "answer") {
    assert.deepEqual(a.lines.map(dec), ["hello", "%end 1700000000 11 1", "%output %0 not output"]);
  }
  assert.ok(b.kind === "answer" && !b.ok && !b.ours);
  assert.deepEqual(n, { kind: "notice", name: "%session-changed", args: ["$1", "loop-x"] });
  assert.deepEqual(x, { kind: "exit", reason: "detached" });
});
