/**
 * A tmux delivery is exactly one submission whatever the text: one paste, one Enter. A fake TUI
 * (`FAKE_HARNESS_TUI=1`: raw mode, bracketed paste on, its tty read byte by byte) runs in a real
 * tmux pane on a private server; events carrying each of the 65 C0/C1 codes and the paste
 * markers — in comment bodies, issue titles, and review comments (body and file path) — go
 * through the real dispatcher (excerpt, rendering, the runner's gate) and the real
 * `TmuxRunner`, and the TUI counts what it was given.
 *
 * @module
 */
import assert from "node:assert/strict";
import { delay } from "../../async/mod.ts";
import { type HarnessLogEntry, readHarnessLog } from "../../tests/fake_harness/mod.ts";
import { comment, itemEvent, setup } from "../_test_utils.ts";
import type { DispatchRunner } from "../seams.ts";
import type { RoutedEvent } from "../types.ts";
import type { HostedSession } from "../seams.ts";
import { parseWorkItem } from "../../state/work_item.ts";
import { tmuxSetup } from "./_test_utils.ts";

/** The 65 control codes: C0, DEL, C1. */
const CODES = [
  ...Array.from({ length: 0x20 }, (_, i) => i),
  0x7f,
  ...Array.from({ length: 0x20 }, (_, i) => 0x80 + i),
];
const ATTACK = "\x1b[201~\r!touch pwned\r";
/** What each case carries: one control code, or a paste marker, between two words. */
const PAYLOADS = [
  ...CODES.map((c) => `left${String.fromCharCode(c)}right`),
  "left\x1b[200~right",
  "left\x1b[201~right",
  `left${ATTACK}right`,
  "left\x00\x03\x1b[201~\x1b[A\x9b201~\r\n\x7fright",
];

// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/; // CR is what tmux makes of a pasted LF: allowed below

function titleEvent(number: number, title: string, n: number): RoutedEvent {
  const event = itemEvent(number, { action: "edited", deliveryId: `title-${n}` });
  // a title edit (an edit that changed nothing is a quiet action, never delivered)
  const item = { kind: "issue" as const, title: `case ${n}: ${title}`, state: "open" };
  return { ...event, item, changed: { title: "the title before" } };
}

function reviewEvent(number: number, text: string, n: number): RoutedEvent {
  const workItem = parseWorkItem(`github:octo/repo#${number}`)!;
  const url = `https://github.com/octo/repo/pull/${number}#discussion_r${n}`;
  return {
    workItem,
    kind: "review_comment",
    ghEvent: "pull_request_review_comment",
    action: "created",
    deliveryId: `review-${n}`,
    via: "gh-webhook",
    actor: "alice",
    labeled: true,
    text: `case ${n}: ${text}`,
    subject: { kind: "review_comment", id: n, url, number, path: `src/${text}.ts`, line: 3 },
    repository: "octo/repo",
    item: { kind: "pull_request", url: `https://github.com/octo/repo/pull/${number}` },
  };
}

/** The tmux runner, remembering every prompt it is handed for a delivery, per work item. */
function recording(runner: DispatchRunner, handed: Map<string, string[]>): DispatchRunner {
  const note = (s: HostedSession, prompt: string) =>
    handed.set(s.ref, [...(handed.get(s.ref) ?? []), prompt]);
  return {
    kind: runner.kind,
    spawn: (s, prompt, opts) => runner.spawn(s, prompt, opts),
    deliver: (s, prompt, opts) => (note(s, prompt), runner.deliver(s, prompt, opts)),
    close: (s) => runner.close(s),
    attachCommand: (slug) => runner.attachCommand!(slug),
  };
}

async function waitFor<T>(what: string, get: () => Promise<T | undefined>, ms = 30_000) {
  const until = Date.now() + ms;
  for (;;) {
    const got = await get();
    if (got !== undefined) return got;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await delay(50);
  }
}

/** Runs every payload in each placement through one rig; returns what each TUI was given. */
async function sweep(o: { control: boolean; payloads: string[] }) {
  const rig = await tmuxSetup({ control: o.control, env: { FAKE_HARNESS_TUI: "1" } });
  const handed = new Map<string, string[]>();
  await using t = await setup({ harnessRunner: recording(rig.runner, handed) });
  try {
    const placements: [number, (p: string, n: number) => RoutedEvent][] = [
      [1, (p, n) => comment(1, `case ${n}: ${p}`, { deliveryId: `body-${n}` })],
      [2, (p, n) => titleEvent(2, p, n)],
      [3, (p, n) => reviewEvent(3, p, n)],
    ];
    for (const [number] of placements) {
      const started = await t.dispatcher.dispatch(comment(number, "the-loop:start-execution"));
      assert.equal(started.status, "delivered", JSON.stringify(started));
    }
    // bracketed paste is on once the pane shows the TUI's ready line (printed after ESC[?2004h)
    for (const [number] of placements) {
      await waitFor(`the TUI of #${number}`, async () => {
        const shown = await rig.tmux(
          "capture-pane",
          "-p",
          "-t",
          `=loop-github-octo-repo-${number}:`,
        );
        return shown.includes("fake tui ready") ? true : undefined;
      });
    }
    // the three sessions side by side; each one's events one after another
    await Promise.all(placements.map(async ([, event]) => {
      for (const [n, payload] of o.payloads.entries()) {
        const outcome = await t.dispatcher.dispatch(event(payload, n));
        assert.equal(outcome.status, "delivered", `case ${n}: ${JSON.stringify(outcome)}`);
      }
    }));
    const results: { ref: string; handed: string[]; submits: HarnessLogEntry[] }[] = [];
    for (const [number] of placements) {
      const ref = `github:octo/repo#${number}`;
      const id = (await t.sessions.live(ref))!.harnessSessionId;
      const prompts = handed.get(ref) ?? [];
      // every delivery's Enter has been read (or the TUI ended): then count what it took
      const submits = await waitFor(`the submissions of ${ref}`, async () => {
        const log = (await readHarnessLog(rig.harnessLog)).filter((e) => e.session === id);
        const ended = log.some((e) => e.event === "interrupted" || e.event === "eof");
        const submits = log.filter((e) => e.event === "submit");
        return ended || submits.length >= prompts.length ? submits : undefined;
      }, 20_000);
      results.push({ ref, handed: prompts, submits });
    }
    return results;
  } finally {
    await rig.cleanup();
  }
}

/** One paste and one Enter per delivery, the paste the prompt handed over and no control in it. */
function assertOneSubmissionEach(results: Awaited<ReturnType<typeof sweep>>, payloads: string[]) {
  for (const { ref, handed, submits } of results) {
    assert.equal(handed.length, payloads.length, `${ref}: deliveries`);
    const typed = submits.filter((s) => s.typed !== "").map((s) => s.typed);
    assert.deepEqual(typed, [], `${ref}: text arrived as keys outside the paste`);
    assert.equal(submits.length, handed.length, `${ref}: submissions (one per delivery)`);
    for (const [i, s] of submits.entries()) {
      assert.equal(s.pastes!.length, 1, `${ref} case ${i}: pastes in one submission`);
      assert.ok(s.utf8, `${ref} case ${i}: invalid UTF-8 reached the TUI`);
      const paste = s.pastes![0];
      // tmux pastes a newline as CR (inside the brackets: text, not Enter)
      assert.equal(paste.replaceAll("\r", "\n"), handed[i], `${ref} case ${i}: the paste`);
      assert.doesNotMatch(paste.replace(/[\r\t]/g, ""), CONTROL, `${ref} case ${i}`);
      assert.ok(paste.includes(`case ${i}: left`), `${ref} case ${i}: the text is in the paste`);
    }
  }
}

Deno.test({
  name: "tmux: every C0/C1 code and paste marker, in bodies, titles and review comments, is one " +
    "paste and one Enter (control client)",
  async fn() {
    const results = await sweep({ control: true, payloads: PAYLOADS });
    assertOneSubmissionEach(results, PAYLOADS);
    const [body, title, review] = results;
    // the stand-ins, where the codes were
    const attack = PAYLOADS.indexOf(`left${ATTACK}right`);
    assert.ok(body.submits[attack].pastes![0].includes("left␛[201~\r!touch pwned\rright"));
    assert.ok(title.submits[attack].pastes![0].includes("left␛[201~ !touch pwned right"));
    assert.ok(
      review.submits[attack].pastes![0].includes("file: src/left␛[201~ !touch pwned right"),
    );
    const nul = PAYLOADS.indexOf("left\x00right");
    for (const r of results) assert.ok(r.submits[nul].pastes![0].includes("left␀right"), r.ref);
    assert.ok(
      body.submits[PAYLOADS.indexOf("left\x9bright")].pastes![0].includes("left\\x9bright"),
    );
    assert.ok(body.submits[PAYLOADS.indexOf("left\x03right")].pastes![0].includes("left␃right"));
  },
});

Deno.test({
  name: "tmux: the attack and the codes are one paste and one Enter through tmux processes too",
  async fn() {
    const payloads = [
      `left${ATTACK}right`,
      `left${CODES.map((c) => String.fromCharCode(c)).join("")}right`,
      "left\x00right",
    ];
    const results = await sweep({ control: false, payloads });
    assertOneSubmissionEach(results, payloads);
  },
});
