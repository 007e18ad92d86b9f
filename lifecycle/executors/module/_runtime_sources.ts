/**
 * The worker runtime's sources, embedded as text: the bundler serves them to esbuild as the
 * entry of every hook bundle, so no file of the-loop is read when a hook loads.
 *
 * @module
 */
import answer from "./_runtime_answer.ts" with { type: "text" };
import codegen from "./_runtime_codegen.ts" with { type: "text" };
import consoleView from "./_runtime_console.ts" with { type: "text" };
import denoView from "./_runtime_deno.ts" with { type: "text" };
import fsGuard from "./_runtime_fs.ts" with { type: "text" };
import guards from "./_runtime_guards.ts" with { type: "text" };
import processView from "./_runtime_process.ts" with { type: "text" };
import refusals from "./_runtime_refusals.ts" with { type: "text" };
import runtime from "./_runtime.ts" with { type: "text" };
import thrown from "./_runtime_thrown.ts" with { type: "text" };
import timers from "./_runtime_timers.ts" with { type: "text" };

/** File name (relative to `lifecycle/executors/module/`) → source text. */
export const RUNTIME_SOURCES: Readonly<Record<string, string>> = Object.freeze({
  "_runtime.ts": runtime,
  "_runtime_guards.ts": guards,
  "_runtime_answer.ts": answer,
  "_runtime_codegen.ts": codegen,
  "_runtime_console.ts": consoleView,
  "_runtime_deno.ts": denoView,
  "_runtime_fs.ts": fsGuard,
  "_runtime_process.ts": processView,
  "_runtime_refusals.ts": refusals,
  "_runtime_thrown.ts": thrown,
  "_runtime_timers.ts": timers,
});
