/**
 * The GitHub client (ground floor): REST over `fetch` with conditional GETs and a persistent
 * ETag cache, `Link` pagination, rate limits waited out, retries with jittered backoff, the
 * token's resolution, and the self-marker on everything the-loop posts. See
 * `docs/decisions/0005-github-client.md`.
 *
 * ```ts
 * import { GitHubClient, resolveToken } from "../github/mod.ts";
 * const { token } = await resolveToken({ tokenEnv: config.github.tokenEnv, apiUrl });
 * const gh = await GitHubClient.open({ apiUrl, token, stateRoot, events: log });
 * ```
 *
 * @module
 */
export {
  GitHubClient,
  type GitHubClientOptions,
  graphqlUrl,
  type ListIssuesOptions,
  type Query,
} from "./client.ts";
export type { GitHubResponse, GitHubStats, RequestOptions, Sleep } from "./transport.ts";
export {
  type CacheEntry,
  ETAG_CACHE_FILE,
  EtagCache,
  type EtagCacheOptions,
  etagCachePath,
} from "./etag_cache.ts";
export { GitHubError, type GitHubErrorInit, type GitHubErrorKind } from "./error.ts";
export {
  ghProgramFromConfig,
  ghProgramWarnings,
  type ResolvedToken,
  resolveToken,
  resolveTokenFromConfig,
  type ResolveTokenOptions,
  TokenMissingError,
} from "./token.ts";
export { commandText } from "./command_text.ts";
export { ATTRIBUTION, isSelfAuthored, markSelfAuthored, SELF_MARKER } from "./self_marker.ts";
export type * from "./types.ts";
