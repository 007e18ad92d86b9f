/**
 * {@linkcode ClaudeTrust}: before each spawn, pre-answers the dialogs Claude Code would otherwise
 * sit on in an unattended session — the workspace-trust dialog, the project onboarding screen and
 * (only when asked for) the bypass-permissions disclaimer — by writing exactly those keys into
 * its own config. Best-effort: a failure is a warning and an event, never an exception.
 * See `docs/workspaces.md`.
 *
 * @module
 */
import { resolve } from "node:path";
import type { EnvReader, RoutingConfig } from "../../config/types.ts";
import type { EventSink } from "../../events/mod.ts";
import type { HarnessName, HarnessTrust } from "../seams.ts";
import { type KeyEdit, mergeTrue } from "./_json_file.ts";
import { asksForBypass, claudeFiles, trustTarget } from "./_scope.ts";
import { messageOf } from "../../errors.ts";

/** Options for {@linkcode ClaudeTrust}. */
export interface ClaudeTrustOptions {
  config: RoutingConfig["harnessTrust"];
  /** `routing.workspace.root` when workspaces are enabled, else `null`. */
  workspaceRoot: string | null;
  /** Reads `CLAUDE_CONFIG_DIR` and `HOME`. */
  env: EnvReader;
  events: EventSink;
  /** Prints a warning for the operator (stderr in the daemon). */
  warn: (message: string) => void;
}

/** Harness trust for Claude Code; `cursor` has no such config, so it is a no-op. */
export class ClaudeTrust implements HarnessTrust {
  readonly #o: ClaudeTrustOptions;
  /** Writes to the harness's files one at a time (two spawns at once must not lose a key). */
  #queue: Promise<void> = Promise.resolve();

  constructor(opts: ClaudeTrustOptions) {
    this.#o = opts;
  }

  prepare(o: { harness: HarnessName; cwd: string; extraArgs: string[] }): Promise<void> {
    if (!this.#o.config.enabled || o.harness !== "claude") return Promise.resolve();
    const run = this.#queue.then(() => this.#prepare(o.cwd, o.extraArgs)).catch((error) =>
      this.#failed("", messageOf(error))
    );
    this.#queue = run;
    return run;
  }

  async #prepare(spawnDir: string, extraArgs: string[]): Promise<void> {
    const { config, env, events } = this.#o;
    const cwd = resolve(spawnDir);
    const files = claudeFiles(env);
    if (!files) return this.#failed("", "neither CLAUDE_CONFIG_DIR nor HOME is set");
    const target = trustTarget({
      scope: config.scope,
      root: this.#o.workspaceRoot,
      cwd,
      home: env("HOME"),
    });
    if (target.degraded) {
      const { root, reason } = target.degraded;
      const tooBroad = reason === "too-broad";
      events.emit("workspace.trust_degraded", { root, cwd, reason }, {
        level: tooBroad ? "warning" : "info",
      });
      if (tooBroad) {
        this.#o.warn(
          `harnessTrust: the workspace root ${root} is too broad to trust as a whole; ` +
            `trusting only ${cwd} (set routing.workspace.root to a dedicated folder)`,
        );
      }
    }
    const project: KeyEdit[] = [
      {
        path: ["projects", target.dir, "hasTrustDialogAccepted"],
        label: `projects[${JSON.stringify(target.dir)}].hasTrustDialogAccepted`,
      },
      {
        path: ["projects", cwd, "hasCompletedProjectOnboarding"],
        label: `projects[${JSON.stringify(cwd)}].hasCompletedProjectOnboarding`,
      },
    ];
    await this.#apply(files.config, project, target.scope, cwd);
    const accept = config.acceptBypassPermissions;
    if (accept === "always" || (accept === "auto" && asksForBypass(extraArgs))) {
      const key = "skipDangerousModePermissionPrompt";
      await this.#apply(files.settings, [{ path: [key], label: key }], target.scope, cwd);
    }
  }

  async #apply(file: string, edits: KeyEdit[], scope: string, cwd: string): Promise<void> {
    const result = await mergeTrue(file, edits);
    if (result.status === "failed") return this.#failed(file, result.error);
    if (result.status === "written") {
      this.#o.events.emit("workspace.trust_applied", {
        harness: "claude",
        file,
        keys: result.changed,
        scope,
        cwd,
      });
    }
  }

  #failed(file: string, error: string): void {
    this.#o.events.emit("workspace.trust_failed", { harness: "claude", file, error });
    this.#o.warn(
      `harnessTrust: could not pre-answer Claude Code's dialogs${file ? ` in ${file}` : ""}: ` +
        `${error}. The session is spawned anyway and may wait on a dialog.`,
    );
  }
}
