/**
 * Harness trust: pre-answering a harness's trust and onboarding dialogs before a
 * spawn, so an unattended session does not stall on a modal. {@linkcode ClaudeTrust} writes
 * Claude Code's keys; the other harnesses take trust as a flag (`cursor-agent --trust` headless,
 * `gemini --skip-trust`: their adapters) or have none (a no-op). See `docs/workspaces.md`.
 *
 * @module
 */
export { ClaudeTrust, type ClaudeTrustOptions } from "./claude.ts";
