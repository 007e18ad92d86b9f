/**
 * The work item: the entity every lifecycle context carries, never a bare string. One function
 * builds it from the-loop's ref ({@linkcode workItemFromRef}); one accepts it inbound from the
 * wire, as an object or a bare ref ({@linkcode toWorkItem}).
 *
 * Part of the hook-author SDK: imports nothing, touches no Deno API.
 *
 * @module
 */

/** Whether the work item is an issue or a pull request; `""` when the point does not know. */
export type WorkItemKind = "issue" | "pull-request" | "";

/** The work item a context is about (or, as `endpoint`, the conversation it lands in). */
export interface WorkItem {
  /** `github:[HOST/]OWNER/REPO#N` (host left out for github.com), or a bare `issue-N`. */
  readonly ref: string;
  /** `github` (`""` for a bare `issue-N`). */
  readonly provider: string;
  /** `github.com`, or a GitHub Enterprise host. */
  readonly host: string;
  readonly owner: string;
  readonly repo: string;
  /** `owner/repo`; `host/owner/repo` when the host is not github.com. */
  readonly repository: string;
  readonly number: number;
  readonly kind: WorkItemKind;
  /** The browser link (`…/issues/N`, or `…/pull/N` for a pull request); `""` when none derives. */
  readonly url: string;
  /** `issue-N`: the spec folder under `docs/specs/`. */
  readonly id: string;
}

/** One WorkItem field, for the docs and the JSON Schema. */
export interface WorkItemFieldSpec {
  readonly name: keyof WorkItem;
  readonly type: "string" | "number";
  readonly doc: string;
}

/** The WorkItem fields, in wire order. The docs test holds `docs/lifecycle-hooks.md` to it. */
export const WORK_ITEM_FIELDS: readonly WorkItemFieldSpec[] = [
  { name: "ref", type: "string", doc: "github:[HOST/]OWNER/REPO#N, the key the-loop uses" },
  { name: "provider", type: "string", doc: "github" },
  { name: "host", type: "string", doc: "github.com or a GitHub Enterprise host" },
  { name: "owner", type: "string", doc: "the repository owner" },
  { name: "repo", type: "string", doc: "the repository name" },
  { name: "repository", type: "string", doc: "owner/repo, host-qualified off github.com" },
  { name: "number", type: "number", doc: "the issue or pull request number" },
  { name: "kind", type: "string", doc: 'issue | pull-request | "" when unknown' },
  { name: "url", type: "string", doc: "the browser link" },
  { name: "id", type: "string", doc: "issue-N, the spec folder" },
];

/** The default GitHub host; a ref names any other host explicitly. */
export const DEFAULT_HOST = "github.com";

const KINDS: readonly string[] = ["issue", "pull-request", ""];
const REF =
  /^github:(?:([A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::\d{1,5})?)\/)?([A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?)\/([A-Za-z0-9._-]+)#([1-9]\d*)$/;
const BARE = /^issue-([1-9]\d*)$/;

/** A ref or a wire value is not a work item. */
export class WorkItemError extends TypeError {
  override name = "WorkItemError";
}

/** Options for {@linkcode workItemFromRef}. */
export interface WorkItemOptions {
  /** What the point knows the item to be; default `""`. */
  kind?: WorkItemKind;
}

/**
 * Builds the work item a ref names: `github:OWNER/REPO#N`, `github:HOST/OWNER/REPO#N`, or a
 * bare `issue-N` (a graph verb's; every other field is then empty). The result is frozen.
 *
 * @throws {WorkItemError} the ref is malformed or the kind is unknown.
 */
export function workItemFromRef(ref: string, opts: WorkItemOptions = {}): WorkItem {
  const kind = opts.kind ?? "";
  if (!KINDS.includes(kind)) {
    throw new WorkItemError(`work item kind must be issue, pull-request or "" (got ${show(kind)})`);
  }
  if (typeof ref !== "string") {
    throw new WorkItemError(`a work item ref must be a string (got ${show(ref)})`);
  }
  const bare = BARE.exec(ref);
  if (bare) {
    const number = Number(bare[1]);
    return Object.freeze({
      ref,
      provider: "",
      host: "",
      owner: "",
      repo: "",
      repository: "",
      number,
      kind,
      url: "",
      id: `issue-${number}`,
    });
  }
  const m = REF.exec(ref);
  if (!m || m[3] === "." || m[3] === "..") {
    throw new WorkItemError(
      `malformed work item ref ${show(ref)}: expected github:OWNER/REPO#N or ` +
        `github:HOST/OWNER/REPO#N (e.g. github:acme/app#42)`,
    );
  }
  const host = (m[1] ?? DEFAULT_HOST).toLowerCase();
  const [owner, repo, number] = [m[2], m[3], Number(m[4])];
  const dflt = host === DEFAULT_HOST;
  const repository = dflt ? `${owner}/${repo}` : `${host}/${owner}/${repo}`;
  const path = kind === "pull-request" ? "pull" : "issues";
  return Object.freeze({
    ref: `github:${repository}#${number}`,
    provider: "github",
    host,
    owner,
    repo,
    repository,
    number,
    kind,
    url: `https://${host}/${owner}/${repo}/${path}/${number}`,
    id: `issue-${number}`,
  });
}

/**
 * Accepts a work item from the wire: a bare ref string (built by {@linkcode workItemFromRef}) or
 * an object carrying every WorkItem field with its type (extra keys are dropped). Frozen.
 *
 * @throws {WorkItemError} naming the first field that is missing or of the wrong type.
 */
export function toWorkItem(value: unknown): WorkItem {
  if (typeof value === "string") return workItemFromRef(value);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new WorkItemError(`a work item must be an object or a ref string (got ${show(value)})`);
  }
  const v = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of WORK_ITEM_FIELDS) {
    const x = v[f.name];
    const ok = f.type === "number"
      ? Number.isSafeInteger(x) && (x as number) >= 0
      : typeof x === "string";
    if (!ok) {
      const want = f.type === "number" ? "a non-negative integer" : "a string";
      throw new WorkItemError(`work item field "${f.name}" must be ${want} (got ${show(x)})`);
    }
    out[f.name] = x;
  }
  if (!KINDS.includes(out.kind as string)) {
    throw new WorkItemError(
      `work item field "kind" must be issue, pull-request or "" (got ${show(out.kind)})`,
    );
  }
  return Object.freeze(out as unknown as WorkItem);
}

/** A short, safe rendering of a value for an error message. */
export function show(value: unknown): string {
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  if (typeof value === "string") {
    return JSON.stringify(value.length > 60 ? value.slice(0, 57) + "..." : value);
  }
  if (typeof value === "object") return "an object";
  return `${typeof value} ${String(value)}`;
}
