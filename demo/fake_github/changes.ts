/**
 * The webhook deliveries GitHub would send for the world's changes: each mutator of
 * {@linkcode World} appends one {@linkcode Change} (event name + payload in GitHub's webhook
 * shape, taken at the moment of the change) to `world.changes`; `FakeGitHub.deliver` POSTs the
 * ones not yet sent, signed, in order.
 *
 * Shapes (as GitHub documents them): every payload has `action`, `repository` and `sender`;
 * `issues` carries `issue` (and `label` for labeled/unlabeled), `pull_request` carries `number`
 * and `pull_request` (and `label`), `issue_comment` carries `issue` and `comment`,
 * `pull_request_review` carries `review` and `pull_request`, `pull_request_review_comment`
 * carries `comment` and `pull_request`.
 *
 * @module
 */
/** A JSON value as GitHub's payloads hold it (the fake does not type GitHub's shapes). */
// deno-lint-ignore no-explicit-any
export type Json = any;

/** One webhook delivery-to-be. */
export interface Change {
  /** `X-GitHub-Event`. */
  event: string;
  /** `payload.action`. */
  action: string;
  /** The payload, a snapshot taken when the change was made. */
  payload: Json;
}

/** A deep copy without the fake's private keys (`__…`). */
export function snapshot(value: Json): Json {
  return JSON.parse(JSON.stringify(value, (k, v) => (k.startsWith("__") ? undefined : v)));
}
