import assert from "node:assert/strict";
import { criticSettings, expandArgs, type PlaceholderValues, unknownPlaceholders } from "./argv.ts";

const VALUES: PlaceholderValues = {
  prompt: `Review "this"; rm -rf / && echo $(whoami) | tee x\n  line two`,
  promptFile: "/tmp/the-loop-critic-1.md",
  model: "opus",
  workItem: "github:octo/repo#12",
  cwd: "/work/repo",
};

Deno.test("placeholders are filled element by element: one element in, one out", () => {
  const args = ["-p", "{prompt}", "--file={promptFile}", "{model}", "{workItem}", "{cwd}", "plain"];
  const out = expandArgs(args, VALUES);
  assert.equal(out.length, args.length);
  assert.deepEqual(out, [
    "-p",
    VALUES.prompt,
    "--file=/tmp/the-loop-critic-1.md",
    "opus",
    "github:octo/repo#12",
    "/work/repo",
    "plain",
  ]);
});

Deno.test("a prompt with shell metacharacters and placeholder-looking text stays one element", () => {
  const prompt = "a b; c | d > e `f` {model} {cwd}";
  const out = expandArgs(["{prompt}"], { ...VALUES, prompt });
  assert.deepEqual(out, [prompt]); // a value is not expanded again
});

Deno.test("an unknown placeholder is refused; braces that are not {word} are text", () => {
  assert.throws(() => expandArgs(["{nope}"], VALUES), /unknown placeholder \{nope\}/);
  assert.deepEqual(unknownPlaceholders("--x={promt}-{cwd}"), ["promt"]);
  assert.deepEqual(unknownPlaceholders('{"a": 1} { } {}'), []);
  assert.deepEqual(expandArgs(['{"a": 1}'], VALUES), ['{"a": 1}']);
});

Deno.test("a harness critic runs with approval ask and its model, nothing more", () => {
  assert.deepEqual(criticSettings("opus"), { approvalMode: "ask", trust: false, model: "opus" });
  assert.deepEqual(criticSettings(null), { approvalMode: "ask", trust: false });
});
