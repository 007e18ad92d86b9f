/**
 * Prefixes every agent's boot prompt (`session_spawn`) with your house rules, given in the
 * declaration:
 *
 * ```yaml
 * hooks:
 *   - name: house-rules
 *     path: hooks/prompt_prefixer.ts
 *     with:
 *       prefix: |
 *         House rules: run `deno task ok` before every push; never force-push.
 * ```
 *
 * A missing or empty `with.prefix` fails the hook's load (the daemon does not start), rather
 * than silently prefixing nothing. A prompt that already starts with the prefix is left alone.
 *
 * @module
 */
import { type HookOptions, LifecycleHooks, type SessionSpawn } from "@the-loop/hooks";

export default class PromptPrefixer extends LifecycleHooks {
  readonly prefix: string;

  constructor(options: HookOptions = {}) {
    super(options);
    const prefix = options.prefix;
    if (typeof prefix !== "string" || prefix.trim() === "") {
      throw new Error(
        `with.prefix must be the text to put before every prompt (got ${JSON.stringify(prefix)})`,
      );
    }
    this.prefix = prefix.trimEnd();
  }

  override session_spawn(ctx: SessionSpawn) {
    if (ctx.prompt.startsWith(this.prefix)) return;
    return { prompt: `${this.prefix}\n\n${ctx.prompt}` };
  }
}
