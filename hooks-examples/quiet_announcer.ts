/**
 * Skips the "session exists, attach here" comment (`session_spawned` → `announce: false`):
 * everywhere, or only for the repositories listed in `with.repos` (`owner/repo`, compared
 * case-insensitively), and optionally only when the session replaces a dead one.
 *
 * ```yaml
 * hooks:
 *   - name: quiet
 *     path: hooks/quiet_announcer.ts
 *     with: { repos: [acme/app, acme/infra], onlyRespawns: true }
 * ```
 *
 * @module
 */
import { type HookOptions, LifecycleHooks, type SessionSpawned } from "@the-loop/hooks";

export default class QuietAnnouncer extends LifecycleHooks {
  /** Lowercase `owner/repo` names; undefined: every repository. */
  readonly repos?: Set<string>;
  readonly onlyRespawns: boolean;

  constructor(options: HookOptions = {}) {
    super(options);
    const { repos, onlyRespawns = false } = options;
    if (repos !== undefined) {
      if (!Array.isArray(repos) || repos.some((r) => typeof r !== "string" || !r.includes("/"))) {
        throw new Error(
          `with.repos must be a list of owner/repo names (got ${JSON.stringify(repos)})`,
        );
      }
      this.repos = new Set(repos.map((r: string) => r.toLowerCase()));
    }
    if (typeof onlyRespawns !== "boolean") {
      throw new Error(
        `with.onlyRespawns must be true or false (got ${JSON.stringify(onlyRespawns)})`,
      );
    }
    this.onlyRespawns = onlyRespawns;
  }

  override session_spawned(ctx: SessionSpawned) {
    if (this.repos && !this.repos.has(ctx.work_item.repository.toLowerCase())) return;
    if (this.onlyRespawns && !ctx.respawn) return;
    return { announce: false };
  }
}
