/**
 * A critic's argv. A command critic's `args` are filled element by element: `{prompt}`,
 * `{promptFile}`, `{model}`, `{workItem}` and `{cwd}` are replaced inside the element that holds
 * them, and an element stays one element whatever the value holds (spaces, quotes, `;`, `$(…)`:
 * no shell ever reads it). A harness critic's argv is its adapter's headless form, the model
 * given through the adapter's settings ({@linkcode criticSettings}: each harness's own model flag).
 *
 * ```ts
 * expandArgs(["--file", "{promptFile}", "--ref={workItem}"], values);
 * // ["--file", "/tmp/the-loop-critic-1a2b.md", "--ref=github:o/r#1"]
 * ```
 *
 * @module
 */
import type { HarnessSettings } from "../../dispatch/mod.ts";

/** The placeholders a command critic's `args` may hold. */
export const PLACEHOLDERS = ["prompt", "promptFile", "model", "workItem", "cwd"] as const;

/** A placeholder's name. */
export type Placeholder = typeof PLACEHOLDERS[number];

/** What each placeholder is filled with. */
export type PlaceholderValues = Record<Placeholder, string>;

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * The placeholders `arg` names that are not {@linkcode PLACEHOLDERS} (`all`: every placeholder
 * it names, known or not). `{"a": 1}` names none: a placeholder is `{word}`.
 */
export function unknownPlaceholders(arg: string, all = false): string[] {
  return [...arg.matchAll(PLACEHOLDER)].map((m) => m[1])
    .filter((n) => all || !(PLACEHOLDERS as readonly string[]).includes(n));
}

/** Whether any element of `args` holds `{name}`. */
export function uses(args: readonly string[], name: Placeholder): boolean {
  return args.some((a) => a.includes(`{${name}}`));
}

/**
 * `args` with every placeholder filled, element by element (one element in, one out). Throws on
 * a placeholder that is not one of {@linkcode PLACEHOLDERS} (the config reader refuses them
 * first).
 */
export function expandArgs(args: readonly string[], values: PlaceholderValues): string[] {
  return args.map((arg) =>
    arg.replace(PLACEHOLDER, (whole, name: string) => {
      if (!(PLACEHOLDERS as readonly string[]).includes(name)) {
        throw new Error(`unknown placeholder ${whole} in ${JSON.stringify(arg)}`);
      }
      return values[name as Placeholder];
    })
  );
}

/**
 * What a harness critic is run with beside its prompt: its model, and approval `ask` (a critic
 * reads and answers; it is never given more than that: `docs/harnesses.md` maps it per harness).
 * The adapter turns these into its own flags.
 */
export function criticSettings(model: string | null): HarnessSettings {
  return { approvalMode: "ask", trust: false, ...(model ? { model } : {}) };
}
