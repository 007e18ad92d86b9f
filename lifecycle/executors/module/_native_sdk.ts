/**
 * What an `import { … } from "@the-loop/hooks"` loads on the native path (`_native.ts`): only
 * the SDK files that define the names it imports, not all of `mod.ts` — `LifecycleHooks` alone
 * is two small files, where the whole SDK is ten (~1.2 MB and ~4 ms more in every worker). The
 * names are read from `mod.ts`'s own `export { … } from "./x.ts"` lists, so each comes from the
 * file `mod.ts` takes it from: the same binding. A name not found there (a type imported without
 * `type`, a default or namespace import) loads the whole SDK, as before.
 *
 * @module
 */
import { SDK_ENTRY, SDK_SOURCES } from "../../sdk/sources.ts";

/** Where a value the SDK's entry exports comes from: its file and its name there. */
export interface SdkExport {
  file: string;
  name: string;
}

const EXPORT_FROM = /^export\s*\{([^}]*)\}\s*from\s*"\.\/([\w.-]+\.ts)";/gm;

let exports: Map<string, SdkExport> | undefined;

/** Every value the SDK's entry re-exports by name, with the file it comes from. */
export function sdkValueExports(): Map<string, SdkExport> {
  if (exports) return exports;
  exports = new Map();
  for (const [, list, file] of SDK_SOURCES[SDK_ENTRY].matchAll(EXPORT_FROM)) {
    for (const item of list.split(",").map((s) => s.trim())) {
      if (!item || /^type\s/.test(item)) continue;
      const [name, alias] = item.split(/\s+as\s+/);
      exports.set(alias ?? name, { file, name });
    }
  }
  return exports;
}

/**
 * The text of a module exporting `names` from the SDK files (`url(file)` gives each file's
 * module), or `undefined` when one of them is not a value the entry re-exports by name.
 */
export function sdkSubset(names: string[], url: (file: string) => string): string | undefined {
  const known = sdkValueExports();
  const byFile = new Map<string, string[]>();
  for (const n of new Set(names)) {
    const at = known.get(n);
    if (!at) return undefined;
    byFile.set(at.file, [...byFile.get(at.file) ?? [], at.name === n ? n : `${at.name} as ${n}`]);
  }
  const lines = [...byFile].map(([file, items]) =>
    `export { ${items.join(", ")} } from "${url(file)}";`
  );
  return lines.length ? `${lines.join("\n")}\n` : "export {};\n";
}
