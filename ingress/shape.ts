/**
 * What a routed value says about its event, read from the payload — the one place past the
 * router's extraction where GitHub's payload shapes are read: its kind, its text (what control
 * keywords are read from and the self-marker is looked for in), the subject reactions go on, how
 * a close closed, and the facts the dispatcher tells (the repository, the issue or pull request,
 * a review's state, a label, a CI run, what an edit changed, whether a bot acted). Both ingress paths reach it through the router (the
 * poller builds the webhook's payload shapes, `poll/payloads.ts`), so both shape alike.
 *
 * @module
 */
import type { CiFacts, ItemFacts, RoutedEvent, RoutedKind, Subject } from "../dispatch/mod.ts";
import { actorsOf, CI_EVENTS, isLifecycleClose } from "./actor.ts";

type Obj = Record<string, unknown>;

const obj = (v: unknown): Obj => (typeof v === "object" && v !== null ? v as Obj : {});
const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** The kind of value an event becomes (`presence` only for the poller's nudge). */
export function kindOf(
  ghEvent: string,
  action: string,
  opts: { presence?: boolean } = {},
): RoutedKind {
  if (isLifecycleClose(ghEvent, action)) return "close";
  if (opts.presence) return "presence";
  if (ghEvent === "issue_comment") return "comment";
  if (ghEvent === "pull_request_review") return "review";
  if (ghEvent === "pull_request_review_comment") return "review_comment";
  if (CI_EVENTS.has(ghEvent)) return "ci";
  return "item";
}

/** The comment's or review's body; `""` for every other event (an issue body is never read). */
export function textOf(ghEvent: string, payload: Obj): string {
  if (ghEvent === "issue_comment" || ghEvent === "pull_request_review_comment") {
    return str(obj(payload.comment).body) ?? "";
  }
  if (ghEvent === "pull_request_review") return str(obj(payload.review).body) ?? "";
  return "";
}

function subjectFrom(kind: Subject["kind"], o: Obj): Subject {
  const out: Subject = { kind };
  const id = num(o.id);
  if (id !== undefined) out.id = id;
  const nodeId = str(o.node_id);
  if (nodeId) out.nodeId = nodeId;
  const url = str(o.html_url);
  if (url) out.url = url;
  return out;
}

/**
 * What the event is about: the comment, the review, or the issue/PR itself (none for CI), with
 * the number of the issue or PR it is on.
 */
export function subjectOf(ghEvent: string, payload: Obj): Subject | undefined {
  if (CI_EVENTS.has(ghEvent)) return undefined;
  const subject = subjectBody(ghEvent, payload);
  if (!subject) return undefined;
  const number = num(obj(payload.issue).number) ?? num(obj(payload.pull_request).number);
  if (number !== undefined) subject.number = number;
  return subject;
}

function subjectBody(ghEvent: string, payload: Obj): Subject | undefined {
  if (ghEvent === "issue_comment") return subjectFrom("issue_comment", obj(payload.comment));
  if (ghEvent === "pull_request_review") return subjectFrom("review", obj(payload.review));
  if (ghEvent === "pull_request_review_comment") {
    const c = obj(payload.comment);
    const subject = subjectFrom("review_comment", c);
    const path = str(c.path);
    if (path) subject.path = path;
    subject.line = num(c.line) ?? num(c.original_line) ?? null;
    return subject;
  }
  const entity = ghEvent === "issues" ? payload.issue : payload.pull_request;
  if (typeof entity !== "object" || entity === null) return undefined;
  return subjectFrom("issue", entity as Obj);
}

/** How a close closed: `merged` for a merged pull request, else `closed`. */
export function closeStateOf(ghEvent: string, payload: Obj): "closed" | "merged" {
  if (ghEvent !== "pull_request") return "closed";
  const pr = obj(payload.pull_request);
  return pr.merged === true || (typeof pr.merged_at === "string" && pr.merged_at !== "")
    ? "merged"
    : "closed";
}

/** A non-empty string (a number as its digits), else `undefined`. */
const text = (v: unknown): string | undefined =>
  typeof v === "string" && v !== "" ? v : typeof v === "number" ? String(v) : undefined;

/** `o` without its `undefined` fields. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** The issue or pull request the payload carries, and which of the two it is. */
function itemOf(ghEvent: string, payload: Obj): ItemFacts | undefined {
  const kind: ItemFacts["kind"] | undefined =
    ghEvent.startsWith("pull_request") || obj(payload.issue).pull_request
      ? "pull_request"
      : ghEvent === "issues" || ghEvent === "issue_comment"
      ? "issue"
      : undefined;
  if (!kind) return undefined;
  const o = obj(payload.pull_request ?? payload.issue);
  return defined({
    kind,
    url: text(o.html_url),
    title: text(o.title),
    state: text(o.state),
    branch: text(obj(o.head).ref),
    harness: harnessLabelOf(o.labels),
  });
}

/** The harness a `harness:<name>` label names (the first such label), `undefined` without one. */
function harnessLabelOf(labels: unknown): string | undefined {
  if (!Array.isArray(labels)) return undefined;
  for (const l of labels) {
    const name = typeof l === "string" ? l : text(obj(l).name);
    const m = name ? /^harness:\s*([a-z][a-z-]*)$/i.exec(name) : null;
    if (m) return m[1].toLowerCase();
  }
  return undefined;
}

/** What a CI event's run (or commit status) reports. */
function ciOf(payload: Obj): CiFacts {
  const run = obj(payload.workflow_run ?? payload.check_run ?? payload.check_suite);
  return defined({
    name: text(run.name) ?? text(payload.context),
    status: text(run.status),
    conclusion: text(run.conclusion) ?? text(payload.state),
    branch: text(run.head_branch),
    url: text(run.html_url) ?? text(payload.target_url),
  });
}

/**
 * An edit's previous values (`changes.<field>.from`): a title, a body (an issue's, a pull
 * request's, a comment's or a review's), a pull request's base ref. `undefined` when the payload
 * carries none of them (no `changes`, or `changes: {}`: nothing the agent reads changed).
 */
export function changedOf(payload: Obj): RoutedEvent["changed"] {
  const changes = obj(payload.changes);
  const from = (key: string) => str(obj(changes[key]).from);
  const out = defined({
    title: from("title"),
    body: from("body"),
    base: str(obj(obj(changes.base).ref).from),
  });
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The facts of the payload a routed event carries for the dispatcher (nothing else of it). */
export function factsOf(
  ghEvent: string,
  payload: Obj,
): Pick<
  RoutedEvent,
  "repository" | "item" | "reviewState" | "label" | "ci" | "changed" | "actorIsBot"
> {
  const item = itemOf(ghEvent, payload);
  const reviewState = ghEvent === "pull_request_review"
    ? text(obj(payload.review).state)
    : undefined;
  const label = text(obj(payload.label).name);
  const changed = changedOf(payload);
  // the actor the router authorizes and records (`actorsOf`): the writer, or the sender
  const bot = actorsOf(ghEvent, payload).actorIsBot === true;
  return {
    repository: str(obj(payload.repository).full_name) ?? "",
    ...(item ? { item } : {}),
    ...(reviewState ? { reviewState } : {}),
    ...(label ? { label } : {}),
    ...(CI_EVENTS.has(ghEvent) ? { ci: ciOf(payload) } : {}),
    ...(changed ? { changed } : {}),
    ...(bot ? { actorIsBot: true } : {}),
  };
}
