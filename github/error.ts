/**
 * {@linkcode GitHubError}: one request to GitHub failed. It names the method, the path and the
 * status, never the token (messages are scrubbed of it before they are built).
 *
 * @module
 */
import { maskTokens } from "../events/scrub.ts";

/** Why a request failed. */
export type GitHubErrorKind =
  /** GitHub answered with a status the caller cannot use (4xx, or 5xx after the retries). */
  | "http"
  /** No answer: the connection failed or was reset, after the retries. */
  | "network"
  /** No answer within the request timeout, after the retries. */
  | "timeout"
  /** An answer whose body was cut short or is not the JSON it should be. */
  | "bad-body"
  /** A GraphQL answer carrying `errors`. */
  | "graphql"
  /** The request was abandoned because the client's signal was aborted (shutdown). */
  | "aborted";

/** Fields of a {@linkcode GitHubError}. */
export interface GitHubErrorInit {
  kind: GitHubErrorKind;
  method: string;
  /** The API path with its query, relative to the base URL, e.g. `/repos/o/r/issues?state=open`. */
  path: string;
  /** The HTTP status, when GitHub answered. */
  status?: number;
  /** What went wrong, already free of secrets. */
  detail: string;
  /** How many attempts were made. */
  attempts?: number;
}

/** One request to GitHub failed. */
export class GitHubError extends Error {
  override name = "GitHubError";
  readonly kind: GitHubErrorKind;
  readonly method: string;
  readonly path: string;
  readonly status: number | undefined;
  readonly attempts: number;

  constructor(init: GitHubErrorInit) {
    const status = init.status === undefined ? "" : ` ${init.status}`;
    const tries = (init.attempts ?? 1) > 1 ? ` (after ${init.attempts} attempts)` : "";
    super(`GitHub ${init.method} ${init.path}:${status} ${init.detail}${tries}`);
    this.kind = init.kind;
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
    this.attempts = init.attempts ?? 1;
  }
}

/** `text` with `secret` (when non-empty) and anything token-shaped replaced by `[redacted]`. */
export function redact(text: string, secret: string | undefined): string {
  let out = text;
  if (secret) out = out.split(secret).join("[redacted]");
  return maskTokens(out);
}
