/**
 * Refuses `work_item_start` for anyone not on a roster file: one GitHub login per line, blank
 * lines and `#` comments ignored, compared case-insensitively (logins are).
 *
 * The hook runs sandboxed, so it may read the roster only because its declaration grants it:
 *
 * ```yaml
 * hooks:
 *   - name: roster
 *     path: hooks/roster_policy.ts
 *     required: true # a missing or unreadable roster refuses the start too
 *     with: { roster: ./roster.txt }
 *     permissions: { read: [./roster.txt] }
 * ```
 *
 * Both paths are relative to the config file's directory: the loader resolves the grant, and the
 * hook resolves `with.roster` with `this.resolvePath()`. The file is read at every start, so
 * editing it needs no restart.
 *
 * @module
 */
import {
  type HookMeta,
  type HookOptions,
  LifecycleHooks,
  type WorkItemStart,
} from "@the-loop/hooks";

export default class RosterPolicy extends LifecycleHooks {
  readonly roster: string;

  constructor(options: HookOptions = {}, meta?: Partial<HookMeta>) {
    super(options, meta);
    const roster = options.roster;
    if (typeof roster !== "string" || roster === "") {
      throw new Error(
        `with.roster must name the roster file (got ${JSON.stringify(roster)}); ` +
          "grant the same path under permissions.read",
      );
    }
    this.roster = this.resolvePath(roster);
  }

  override async work_item_start(ctx: WorkItemStart) {
    let text: string;
    try {
      text = await Deno.readTextFile(this.roster);
    } catch (err) {
      const fix = err instanceof Deno.errors.NotCapable
        ? `grant it in the declaration: permissions: {read: [${this.roster}]}`
        : "check that the file exists and is readable";
      throw new Error(`cannot read the roster ${this.roster} (${(err as Error).name}); ${fix}`);
    }
    const logins = new Set(
      text.split("\n").map((l) => l.replace(/#.*/, "").trim().toLowerCase()).filter(Boolean),
    );
    if (logins.has(ctx.actor.toLowerCase())) return;
    return {
      proceed: false,
      reason: `@${ctx.actor} is not on the delivery roster; ask a maintainer to add them`,
    };
  }
}
