/**
 * What a routed value says about its event, read from the payload: its kind, its text (what
 * control keywords are read from and the self-marker is looked for in), the subject reactions go
 * on, and how a close closed.
 *
 * @module
 */
import type { RoutedKind, Subject } from "../dispatch/mod.ts";
import { CI_EVENTS, isLifecycleClose } from "./actor.ts";

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
