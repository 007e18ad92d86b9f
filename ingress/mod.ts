/**
 * The router's face, shared by both ingress paths (the poller and the webhook receiver): an
 * {@linkcode IngressEvent} in, one routed event per work item it concerns out to the dispatcher
 * (`RoutedEvent` of `dispatch/mod.ts`, shaped here: `shape.ts` is the one place that reads
 * GitHub's payloads for the dispatcher), and a `routing.*` event for every decision. See
 * `docs/routing.md`. It exports what the ingress paths, the commands and the tests use: the
 * stack the daemons open ({@linkcode openIngress}), the router and its sink's types, the default
 * event list, and the login checks the poller's settings and `config validate` share.
 *
 * ```ts
 * import { openIngress } from "../ingress/mod.ts";
 * const { router } = await openIngress({ loaded, token, env, cwd, events, warn });
 * await router.route({ ghEvent, deliveryId, via: "gh-webhook", payload });
 * ```
 *
 * @module
 */
export type { IngressEvent, RouteResult, RouterGitHub, RouteSink, RoutingPolicy } from "./types.ts";
export { Router, type RouterOptions } from "./router.ts";
export { botInUsersWarning, botsAmongUsers, DEFAULT_EVENTS } from "./policy.ts";
export { isAuthorized, isBotLogin, normalizeLogin } from "./actor.ts";
export { type Ingress, type IngressOptions, openIngress } from "./stack.ts";
export { type LiveIngress, type LiveIngressOptions, openLiveIngress } from "./reload.ts";
