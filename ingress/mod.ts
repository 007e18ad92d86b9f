/**
 * The router's face, shared by both ingress paths (the poller and the webhook receiver): an
 * {@linkcode IngressEvent} in, one {@linkcode RoutedEvent} per work item it concerns out to the
 * dispatcher, and a `routing.*` event for every decision. See `docs/routing.md`.
 *
 * ```ts
 * import { policyFromConfig, policyWarnings, Router } from "../ingress/mod.ts";
 * const policy = policyFromConfig(config);
 * for (const w of policyWarnings(policy)) warn(w);
 * const router = new Router({ dispatcher, sessions, github, events: log, policy });
 * await router.route({ ghEvent, deliveryId, via: "gh-webhook", payload });
 * ```
 *
 * @module
 */
export type {
  DropReason,
  IngressEvent,
  RouteResult,
  RouterGitHub,
  RouteSink,
  RoutingPolicy,
} from "./types.ts";
export type { RoutedEvent } from "../dispatch/mod.ts";
export { Router, type RouterOptions } from "./router.ts";
export { DEFAULT_EVENTS, eventFilter, policyFromConfig, policyWarnings } from "./policy.ts";
export { DedupCache, DEFAULT_DEDUP_CACHE_SIZE } from "./dedup.ts";
export {
  branchOnly,
  type Candidate,
  extractWorkItems,
  type LinkSource,
  locate,
  type Located,
  prRef,
} from "./extract.ts";
export { closingKeywordRefs, issueFromBranch, type KeywordRef } from "./linkage.ts";
export {
  actorOf,
  type Actors,
  actorsOf,
  areAuthorized,
  CI_EVENTS,
  isAuthorized,
  isLifecycleClose,
  normalizeLogin,
} from "./actor.ts";
export { isLabeled } from "./labeled.ts";
export { closeStateOf, kindOf, subjectOf, textOf } from "./shape.ts";
export { type Ingress, type IngressOptions, openIngress, routingWarnings } from "./stack.ts";
export { type LiveIngress, type LiveIngressOptions, openLiveIngress } from "./reload.ts";
