/**
 * Bench: how many bytes a gathered burst's prompt takes. A burst is the events that gather for
 * one session while its delivery is under way; they go into one harness call. Two bursts on one
 * work item: 10 comments, and 20 mixed events (comments, reviews, inline review comments, a CI
 * failure, a pull request `synchronize`). Each runs through the real dispatcher (fakes behind the
 * runner and GitHub seams, the headless runner, the built-in template): **after** is the prompt
 * the runner was handed for the burst (one frame, `dispatch/turn/burst.ts`); **before** is the
 * reference the dispatcher used to send, each event's whole prompt (the prompt it gets when it
 * goes alone, delivered one by one here) joined with `BATCH_SEPARATOR`. Reported side by side in
 * UTF-8 bytes, with `before / after` and the bytes of the excerpts themselves (what no frame can
 * save). A count of bytes, not a timing: it is the same in every run.
 *
 * @module
 */
import { ciEvent, comment, holdingFirstDelivery, setup, until } from "../dispatch/_test_utils.ts";
import type { RoutedEvent } from "../dispatch/mod.ts";
import { BATCH_SEPARATOR } from "../dispatch/turn/mod.ts";

const encoder = new TextEncoder();
const bytes = (s: string) => encoder.encode(s).length;

/** Comment bodies of a working conversation: a line or a short paragraph each. */
const SAYINGS = [
  "Thanks! Could you also handle the case where the config file is missing? Right now it throws.",
  "LGTM once CI is green.",
  "I tried this locally and `deno task test` fails on `poll_core_test.ts` with a timeout, " +
  "probably the new retry loop. Can you take a look?",
  "Nit: the error message should say which file it could not read and what to do about it.",
  "Please don't rename `registryDir`, other tools read it. Keep the old name and add an alias " +
  "if you need one.",
  "+1",
  "Is the 60 s default a good idea? On a busy repo I'd rather have it at 10 s.",
  "The docs still describe the old flag (`--once`); please update docs/poll.md too.",
  "Works for me now. One more thing: the log line at startup prints the token length, drop it.",
  "Can you squash the fixups before I merge?",
];

let deliveries = 0;
/** A delivery id shaped as GitHub's (`X-GitHub-Delivery`, a GUID). */
const guid = () => `7c0f3e10-5a2b-11f0-8b1e-${String(++deliveries).padStart(12, "0")}`;

/** A comment of the conversation on `#1`, with an id and a link of its own. */
function base(i: number): RoutedEvent {
  const c = comment(1, SAYINGS[i % SAYINGS.length], { deliveryId: guid() });
  const id = 2_000_000_000 + deliveries;
  return { ...c, subject: { ...c.subject!, id, url: `${c.item!.url}#issuecomment-${id}` } };
}

function review(i: number, state: string): RoutedEvent {
  const c = base(i);
  return {
    ...c,
    kind: "review",
    ghEvent: "pull_request_review",
    action: "submitted",
    reviewState: state,
    subject: { kind: "review", id: 5000 + i, url: `${c.item!.url}#pullrequestreview-${5000 + i}` },
  };
}

function inline(i: number, path: string, line: number): RoutedEvent {
  const c = base(i);
  return {
    ...c,
    kind: "review_comment",
    ghEvent: "pull_request_review_comment",
    action: "created",
    subject: {
      kind: "review_comment",
      id: 7000 + i,
      url: `${c.item!.url}#r${7000 + i}`,
      path,
      line,
    },
  };
}

function synchronize(): RoutedEvent {
  const c = base(0);
  return {
    ...c,
    kind: "item",
    ghEvent: "pull_request",
    action: "synchronize",
    text: "",
    subject: { kind: "issue", id: 77, number: 1 },
    item: {
      kind: "pull_request",
      url: "https://github.com/octo/repo/pull/1",
      title: "poll: retry a failed cycle with backoff",
      state: "open",
      branch: "issue-1",
    },
  };
}

function ci(name: string): RoutedEvent {
  const run = ciEvent(1, { deliveryId: guid() });
  const url = "https://github.com/octo/repo/actions/runs/9911";
  return { ...run, ci: { name, conclusion: "failure", branch: "issue-1", url } };
}

/** The bursts, by the name their figures appear under. */
const BURSTS: Record<string, () => RoutedEvent[]> = {
  comments_10: () => Array.from({ length: 10 }, (_, i) => base(i)),
  mixed_20: () => [
    base(0),
    review(1, "changes_requested"),
    inline(2, "poll/cycle.ts", 41),
    inline(3, "poll/cycle.ts", 77),
    inline(4, "docs/poll.md", 12),
    base(5),
    synchronize(),
    ci("ci"),
    base(6),
    base(7),
    review(8, "commented"),
    inline(9, "poll/ledger.ts", 103),
    base(1),
    synchronize(),
    ci("lint"),
    base(2),
    review(3, "approved"),
    base(4),
    inline(5, "poll/cycle.ts", 52),
    base(8),
  ],
};

/** The prompt the runner got for `events` gathered behind a held delivery: one harness call. */
async function gathered(events: RoutedEvent[]): Promise<string> {
  await using t = await setup({ runner: "process" });
  const { held, first } = await holdingFirstDelivery(t);
  const outs = events.map((e) => t.dispatcher.dispatch(e));
  await until(() => t.dispatcher.load.waiting === events.length, "the burst gathered");
  t.runner.gate = () => {};
  held.resolve();
  for (const out of await Promise.all([first, ...outs])) {
    if (out.status !== "delivered") throw new Error(`a burst event was ${JSON.stringify(out)}`);
  }
  const calls = t.runner.calls.filter((c) => c.op === "deliver");
  if (calls.length !== 2) throw new Error(`the burst took ${calls.length - 1} harness calls`);
  return calls[1].prompt!;
}

/** Each event's whole prompt, as it goes alone: delivered one by one. */
async function alone(events: RoutedEvent[]): Promise<string[]> {
  await using t = await setup({ runner: "process" });
  await t.dispatcher.dispatch(comment(1, "the-loop:start-execution"));
  for (const e of events) await t.dispatcher.dispatch(e);
  return t.runner.calls.filter((c) => c.op === "deliver").map((c) => c.prompt!);
}

/** The reference: how a batch went in before bursts were framed. */
const oldJoin = (prompts: string[]) => prompts.join(BATCH_SEPARATOR);

const EXCERPT = /UNTRUSTED CONTENT from GitHub[\s\S]*?END OF UNTRUSTED CONTENT/g;

/** Runs the bench. */
export async function run(): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = { runner: "process", template: "built-in" };
  for (const [name, make] of Object.entries(BURSTS)) {
    const events = make();
    const before = oldJoin(await alone(events));
    const after = await gathered(events);
    const excerpts = [...after.matchAll(EXCERPT)].map((m) => m[0]);
    if (excerpts.length !== events.length) {
      throw new Error(`${name}: ${excerpts.length} excerpts in the burst of ${events.length}`);
    }
    const b = bytes(before);
    const a = bytes(after);
    const excerptBytes = excerpts.reduce((sum, e) => sum + bytes(e), 0);
    results[name] = {
      events: events.length,
      before_bytes: b,
      after_bytes: a,
      before_over_after: Math.round((b / a) * 100) / 100,
      // the events' own excerpts (in both), and what the frame around them takes
      excerpt_bytes: excerptBytes,
      frame_bytes_before: b - excerptBytes,
      frame_bytes_after: a - excerptBytes,
      frame_before_over_after: Math.round(((b - excerptBytes) / (a - excerptBytes)) * 100) / 100,
    };
  }
  return results;
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
