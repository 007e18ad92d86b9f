/**
 * Harness trust: pre-answering a harness's trust and onboarding dialogs before a
 * spawn, so an unattended session does not stall on a modal. {@linkcode ClaudeTrust} writes
 * Claude Code's keys; `cursor-agent` has no such config (a no-op). See `docs/workspaces.md`.
 *
 * @module
 */
export { ClaudeTrust, type ClaudeTrustOptions } from "./claude.ts";
