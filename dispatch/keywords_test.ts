import assert from "node:assert/strict";
import type { RoutingConfig } from "../config/mod.ts";
import { parseControl } from "./keywords.ts";

type Control = RoutingConfig["control"];

const DEFAULTS: Control = {
  enabled: true,
  requireStartCommand: true,
  keywords: {
    start: "the-loop:start-execution",
    stop: "the-loop:stop-execution",
    pause: "the-loop:pause-execution",
    resume: "the-loop:resume-execution",
  },
  ghBinary: "gh",
};

// keywords with a space inside (`the-loop start`, …)
const SPACED: Control = {
  ...DEFAULTS,
  keywords: {
    start: "the-loop start",
    stop: "the-loop stop",
    pause: "the-loop pause",
    resume: "the-loop resume",
  },
};

// keyword parsing: whole tokens, in any case
Deno.test("a keyword matches as a whole token, case-insensitively", () => {
  for (
    const text of [
      "the-loop start",
      "**the-loop start**",
      "(the-loop start)",
      "THE-LOOP START",
      "the-loop start.",
      "ok, the-loop start\nthanks",
      "the-loop   start",
    ]
  ) {
    assert.deepEqual(parseControl(text, SPACED), { command: "start" }, text);
  }
  for (
    const text of [
      "the-loop:start-execution",
      "**the-loop:start-execution**",
      "(THE-LOOP:START-EXECUTION)",
      "go: the-loop:start-execution.",
    ]
  ) {
    assert.deepEqual(parseControl(text, DEFAULTS), { command: "start" }, text);
  }
});

Deno.test("a keyword glued to a word character, : or - does not match", () => {
  for (
    const text of ["xthe-loop start", "the-loop startx", "the-loop start:now", "-the-loop start"]
  ) {
    assert.deepEqual(parseControl(text, SPACED), {}, text);
  }
  for (
    const text of [
      "xthe-loop:start-execution",
      "the-loop:start-execution:now",
      "the-loop:start-execution-later",
      "the-loop:start-executions",
      "_the-loop:start-execution",
    ]
  ) {
    assert.deepEqual(parseControl(text, DEFAULTS), {}, text);
  }
});

Deno.test("the same keyword twice is one command", () => {
  assert.deepEqual(parseControl("the-loop start. Really: THE-LOOP START", SPACED), {
    command: "start",
  });
});

// two different keywords in one comment: ambiguous, nothing executed
Deno.test("two different keywords are ambiguous: no command", () => {
  assert.deepEqual(
    parseControl("the-loop:stop-execution? no, the-loop:start-execution", DEFAULTS),
    { ambiguous: ["start", "stop"] },
  );
});

// config effects on keywords: an empty one disables its command
Deno.test("an empty keyword disables only that command", () => {
  const control = { ...DEFAULTS, keywords: { ...DEFAULTS.keywords, pause: "" } };
  assert.deepEqual(parseControl("the-loop:pause-execution", control), {});
  assert.deepEqual(parseControl("the-loop:resume-execution", control), { command: "resume" });
  // an empty keyword never matches empty text either
  assert.deepEqual(parseControl("", control), {});
});

Deno.test("control.enabled: false recognises nothing", () => {
  const control = { ...DEFAULTS, enabled: false };
  assert.deepEqual(parseControl("the-loop:start-execution", control), {});
});

Deno.test("regex characters in a keyword are taken literally", () => {
  const control = { ...DEFAULTS, keywords: { ...DEFAULTS.keywords, stop: "/stop (now)" } };
  assert.deepEqual(parseControl("please /stop (now)", control), { command: "stop" });
  assert.deepEqual(parseControl("please /stopx (now)", control), {});
});

Deno.test("keywords in any case are found in long text; non-ASCII keywords fold case too", () => {
  const filler = "Please look at this. ".repeat(200);
  const mixed: Control = { ...DEFAULTS, keywords: { ...DEFAULTS.keywords, start: "The-Loop:GO" } };
  assert.deepEqual(parseControl(filler, DEFAULTS), {});
  assert.deepEqual(parseControl(`${filler}THE-LOOP:go ${filler}`, mixed), { command: "start" });
  const french: Control = {
    ...DEFAULTS,
    keywords: { ...DEFAULTS.keywords, start: "démarrer vite" },
  };
  assert.deepEqual(parseControl(`${filler} DÉMARRER  VITE`, french), { command: "start" });
  assert.deepEqual(parseControl(`${filler} démarrer`, french), {});
});

// a keyword quoted in a reply or shown in an example is not a command
Deno.test("a keyword in a quote, a code block or inline code is not recognised", () => {
  for (
    const text of [
      "> the-loop:start-execution",
      "> can you the-loop:start-execution?\n\nNot yet.",
      "To stop it, write:\n\n```\nthe-loop:stop-execution\n```",
      "~~~md\nthe-loop:stop-execution\n~~~",
      "- example:\n  ```\n  the-loop:pause-execution\n  ```",
      "example:\n\n    the-loop:stop-execution",
      "write `the-loop:stop-execution` to stop",
      "``the-loop:stop-execution``",
    ]
  ) {
    assert.deepEqual(parseControl(text, DEFAULTS), {}, text);
  }
  // quoted or shown, the other command does not make a real one ambiguous
  assert.deepEqual(
    parseControl("> the-loop:stop-execution\n\nNo: the-loop:start-execution", DEFAULTS),
    { command: "start" },
  );
  assert.deepEqual(
    parseControl("`the-loop:stop-execution` stops it; for now the-loop:pause-execution", DEFAULTS),
    { command: "pause" },
  );
});

// a keyword hidden in an HTML comment: GitHub shows nothing of it, so nobody reading sees the command
Deno.test("a keyword in an HTML comment is not recognised", () => {
  for (
    const text of [
      "<!-- the-loop:start-execution -->",
      "Done here.\n\n<!--\nthe-loop:stop-execution\n-->",
      "ok <!-- the-loop:pause-execution --> thanks",
      "<!-- notes\n\nthe-loop:start-execution",
    ]
  ) {
    assert.deepEqual(parseControl(text, DEFAULTS), {}, text);
  }
  assert.deepEqual(
    parseControl("<!-- the-loop:stop-execution -->\nthe-loop:start-execution loop=pdlc", DEFAULTS),
    { command: "start", loop: "pdlc" },
    "a hidden keyword beside a visible one: the visible one, not ambiguous",
  );
  assert.deepEqual(
    parseControl("<!-- the-loop:start-execution --> loop=pdlc", DEFAULTS),
    {},
    "a loop= after a hidden keyword names nothing",
  );
});

// a loop named after the start keyword
Deno.test("loop=NAME right after the start keyword names the loop", () => {
  assert.deepEqual(parseControl("the-loop:start-execution loop=pdlc", DEFAULTS), {
    command: "start",
    loop: "pdlc",
  });
  assert.deepEqual(
    parseControl("please the-loop:start-execution   loop=my-loop.v2 now", DEFAULTS),
    {
      command: "start",
      loop: "my-loop.v2",
    },
  );
  assert.deepEqual(parseControl("the-loop start loop=adhoc", SPACED), {
    command: "start",
    loop: "adhoc",
  });
});

Deno.test("loop= elsewhere, glued or after another keyword names no loop", () => {
  for (
    const text of [
      "the-loop:start-execution, loop=pdlc", // not right after
      "the-loop:start-execution\nloop=pdlc", // not on its line
      "the-loop:start-execution loop=pdlc:x", // not a whole token
      "the-loop:start-execution loop=", // no name
      "the-loop:start-execution `loop=pdlc`", // in code
      "loop=pdlc the-loop:start-execution",
    ]
  ) {
    assert.deepEqual(parseControl(text, DEFAULTS), { command: "start" }, text);
  }
  assert.deepEqual(parseControl("the-loop:pause-execution loop=pdlc", DEFAULTS), {
    command: "pause",
  });
});
