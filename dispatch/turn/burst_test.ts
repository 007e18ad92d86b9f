import assert from "node:assert/strict";
import { payloadExcerpt } from "../_excerpt.ts";
import { ciEvent, comment } from "../_test_utils.ts";
import {
  DEFAULT_EVENT_TEMPLATE,
  defaultTemplates,
  parseTemplate,
  type PromptTemplate,
  type PromptValues,
  renderPrompt,
} from "../prompts.ts";
import type { RoutedEvent } from "../types.ts";
import { repoOf } from "../../state/work_item.ts";
import { BATCH_SEPARATOR, type BurstItem, burstPart, burstPrompt, REPEAT_LINE } from "./burst.ts";

const DIRECTIVE = "This session runs headless: each event is one turn. Ask and end your turn.";

function values(event: RoutedEvent): PromptValues {
  return {
    work_item: event.workItem.ref,
    event: event.ghEvent,
    action: event.action,
    repository: repoOf(event.workItem),
    delivery_id: event.deliveryId,
    payload_excerpt: payloadExcerpt(event),
    interaction_directive: DIRECTIVE,
    graph_context: "",
  };
}

/** A delivery as `deliver` queues it: the prompt alone, and its part of a burst. */
function item(
  event: RoutedEvent,
  o: { template?: PromptTemplate; repeat?: boolean } = {},
): BurstItem {
  const template = o.template ?? defaultTemplates().event;
  const v = values(event);
  const rendered = renderPrompt(template, v);
  const repeat = o.repeat ?? false;
  const prompt = repeat ? `${REPEAT_LINE}\n\n${rendered}` : rendered;
  return { prompt, part: burstPart({ template, values: v, repeat, prompt }) };
}

const count = (text: string, s: string) => text.split(s).length - 1;
const FENCE_OPEN = "UNTRUSTED CONTENT from GitHub";
const FENCE_CLOSE = "END OF UNTRUSTED CONTENT";

Deno.test("a burst of the built-in template is one frame: one header, each event's excerpt fenced in order, one closing", () => {
  const template = defaultTemplates().event;
  const bodies = ["first words", "second words", "third words"];
  const items = bodies.map((b) => item(comment(1, b), { template }));
  const prompt = burstPrompt(items);
  assert.ok(
    prompt.startsWith(
      "3 new events arrived on the work item you are working on: github:octo/repo#1 " +
        "(repository octo/repo), in the order they arrived.\n\nEvent 1 (delivery d-",
    ),
    prompt.slice(0, 200),
  );
  assert.equal(count(prompt, "new events arrived"), 1, "one header");
  assert.equal(count(prompt, "A new event arrived"), 0, "no event's own header");
  assert.equal(count(prompt, "Carry on with your work"), 1, "one closing paragraph");
  assert.equal(count(prompt, DIRECTIVE), 1, "the directive once");
  assert.equal(count(prompt, BATCH_SEPARATOR), 0);
  assert.equal(count(prompt, FENCE_OPEN), 3, "each event fenced");
  assert.equal(count(prompt, FENCE_CLOSE), 3);
  // in arrival order, each excerpt whole between its heading and the next one
  const at = bodies.map((b) => prompt.indexOf(b));
  assert.ok(at[0] > 0 && at[0] < at[1] && at[1] < at[2], `${at}`);
  for (const [i, it] of items.entries()) {
    const excerpt = it.part!.values.payload_excerpt;
    assert.ok(prompt.includes(`Event ${i + 1} (delivery ${it.part!.values.delivery_id}):`));
    assert.ok(prompt.includes(excerpt), `excerpt ${i + 1} whole (author, link, fence)`);
    assert.match(excerpt, /author: @alice/);
    assert.match(excerpt, /url: https:\/\/github\.com\/octo\/repo\/issues\/1#issuecomment-/);
  }
  assert.ok(prompt.indexOf(FENCE_CLOSE, at[2]) < prompt.indexOf("Carry on"), "closing last");
  assert.ok(prompt.endsWith(`${DIRECTIVE}\n`));
});

Deno.test("a batch of one is the event's own prompt, byte for byte", () => {
  const one = item(comment(1, "alone"));
  assert.equal(burstPrompt([one]), one.prompt);
  assert.match(one.prompt, /^A new event arrived on the work item/);
  const repeated = item(comment(1, "again"), { repeat: true });
  assert.equal(burstPrompt([repeated]), repeated.prompt);
  assert.ok(repeated.prompt.startsWith(`${REPEAT_LINE}\n\nA new event arrived`));
});

Deno.test("in a burst, an event that may repeat keeps its repeat line, just before its heading", () => {
  const items = [
    item(comment(1, "plain one")),
    item(comment(1, "maybe twice"), { repeat: true }),
    item(comment(1, "plain two")),
  ];
  const prompt = burstPrompt(items);
  assert.equal(count(prompt, REPEAT_LINE), 1);
  assert.ok(prompt.includes(`${REPEAT_LINE}\n\nEvent 2 (`), "before the event it concerns");
  const all = burstPrompt(items.map(() => item(comment(1, "x"), { repeat: true })));
  assert.equal(count(all, REPEAT_LINE), 3, "once per event it concerns");
});

Deno.test("a burst mixes kinds: each event's own excerpt and heading (a comment, a CI failure)", () => {
  const prompt = burstPrompt([item(comment(1, "look at CI")), item(ciEvent(1))]);
  assert.match(
    prompt,
    /Event 1 \(delivery d-\d+\):\n\n[^\n]+\n~~~text\nevent: issue_comment \(created\)/,
  );
  assert.match(
    prompt,
    /Event 2 \(delivery d-\d+\):\n\n[^\n]+\n~~~text\nevent: workflow_run \(completed\)/,
  );
  assert.match(prompt, /conclusion: failure/);
  assert.equal(count(prompt, FENCE_OPEN), 2);
});

Deno.test("a custom template is split at its lines: header and closing once, its event lines per event", () => {
  const template = parseTemplate(
    "News on $work_item:\n\n## $event $action ($delivery_id)\n$payload_excerpt\n\n" +
      "Act on it.\n$interaction_directive\n",
    "custom.md",
  );
  const items = ["one", "two"].map((b) => item(comment(1, `custom ${b}`), { template }));
  const prompt = burstPrompt(items);
  assert.equal(count(prompt, "News on github:octo/repo#1:"), 1);
  assert.equal(count(prompt, "## issue_comment created ("), 2);
  assert.equal(count(prompt, "Act on it."), 1);
  assert.equal(count(prompt, DIRECTIVE), 1);
  assert.equal(count(prompt, FENCE_OPEN), 2);
  assert.ok(prompt.indexOf("custom one") < prompt.indexOf("custom two"));
  assert.ok(prompt.startsWith("News on github:octo/repo#1:\n\n## issue_comment"));
  assert.ok(prompt.endsWith("Act on it.\n" + DIRECTIVE + "\n"));
  // a batch of one under it is its own prompt
  assert.equal(burstPrompt([items[0]]), renderPrompt(template, items[0].part!.values));
});

Deno.test("the built-in template's text in a file of its own is framed as the built-in one", () => {
  const copy = parseTemplate(DEFAULT_EVENT_TEMPLATE, "/etc/loop/event.md");
  const prompt = burstPrompt([
    item(comment(1, "a"), { template: copy }),
    item(comment(1, "b"), {
      template: copy,
    }),
  ]);
  assert.match(prompt, /^2 new events arrived on the work item/);
});

Deno.test("a custom template that cannot be split goes as before: each prompt whole, joined by the separator", () => {
  for (
    const text of [
      "Something happened on $work_item. Look at it.\n", // no event line
      "$event on $work_item\n$interaction_directive\n$payload_excerpt\n", // the directive among them
    ]
  ) {
    const template = parseTemplate(text, "custom.md");
    const items = ["one", "two"].map((b) => item(comment(1, b), { template }));
    assert.equal(burstPrompt(items), items.map((i) => i.prompt).join(BATCH_SEPARATOR), text);
    assert.equal(items[1].part!.chars, items[1].prompt.length + BATCH_SEPARATOR.length);
  }
});

Deno.test("a prompt that is not an event's goes whole between the frames", () => {
  const answer: BurstItem = { prompt: "The answer to your question: yes.\n" };
  const items = [item(comment(1, "e1")), item(comment(1, "e2")), answer, item(comment(1, "e3"))];
  const parts = burstPrompt(items).split(BATCH_SEPARATOR);
  assert.equal(parts.length, 3);
  assert.match(parts[0], /^2 new events arrived/);
  assert.ok(parts[0].includes("e1") && parts[0].includes("e2"));
  assert.equal(parts[1], answer.prompt);
  assert.equal(parts[2], items[3].prompt, "a run of one event: its own prompt");
});

Deno.test("an event's share of a frame is counted as its section, far less than its prompt", () => {
  const it = item(comment(1, "counted"));
  const section = `Event 10 ${
    renderPrompt(
      parseTemplate("(delivery $delivery_id):\n\n$payload_excerpt", "x"),
      it.part!.values,
    ).trim()
  }`;
  assert.equal(it.part!.chars, section.length + 2);
  assert.ok(it.part!.chars < it.prompt.length - 500, `${it.part!.chars} of ${it.prompt.length}`);
  const frame = burstPrompt(Array.from({ length: 10 }, () => it));
  const counted = it.prompt.length + 9 * it.part!.chars;
  assert.ok(Math.abs(frame.length - counted) < 100, `${frame.length} vs ${counted} counted`);
});
