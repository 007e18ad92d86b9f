/**
 * The worker runtime's sources, embedded as text: the bundler serves them to esbuild as the
 * entry of every hook bundle, so no file of the-loop is read when a hook loads.
 *
 * @module
 */
import answer from "./_runtime_answer.ts" with { type: "text" };
import codegen from "./_runtime_codegen.ts" with { type: "text" };
import guards from "./_runtime_guards.ts" with { type: "text" };
import runtime from "./_runtime.ts" with { type: "text" };

/** File name (relative to `lifecycle/module/`) → source text. */
export const RUNTIME_SOURCES: Readonly<Record<string, string>> = Object.freeze({
  "_runtime.ts": runtime,
  "_runtime_guards.ts": guards,
  "_runtime_answer.ts": answer,
  "_runtime_codegen.ts": codegen,
});
