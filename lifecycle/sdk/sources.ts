/**
 * The hook-author SDK's sources, embedded as text so a sandboxed module hook can import
 * `@the-loop/hooks` (or a relative path to `lifecycle/sdk/mod.ts`) without reading the-loop's files at run time:
 * the module bundler serves these texts to esbuild. Every file `mod.ts` reaches through its
 * relative imports must be listed here (`module/sdk_sources_test.ts` walks them and fails on
 * a missing one).
 *
 * @module
 */
import catalog from "./_catalog.ts" with { type: "text" };
import context from "./_context.ts" with { type: "text" };
import schema from "./_schema.ts" with { type: "text" };
import contract from "./contract.ts" with { type: "text" };
import contextTypes from "./context_types.ts" with { type: "text" };
import hooks from "./hooks.ts" with { type: "text" };
import mod from "./mod.ts" with { type: "text" };
import points from "./points.ts" with { type: "text" };
import readCapped from "./read_capped.ts" with { type: "text" };
import serve from "./serve.ts" with { type: "text" };
import workItem from "./work_item.ts" with { type: "text" };

/** File name (relative to `lifecycle/sdk/`) → source text, for every SDK file a hook may import. */
export const SDK_SOURCES: Readonly<Record<string, string>> = Object.freeze({
  "mod.ts": mod,
  "_catalog.ts": catalog,
  "_context.ts": context,
  "_schema.ts": schema,
  "contract.ts": contract,
  "context_types.ts": contextTypes,
  "hooks.ts": hooks,
  "points.ts": points,
  "read_capped.ts": readCapped,
  "serve.ts": serve,
  "work_item.ts": workItem,
});

/** The SDK's entry file: what `@the-loop/hooks` resolves to. */
export const SDK_ENTRY = "mod.ts";
