// @ts-self-types="./_esbuild_wasm.d.ts"
// esbuild's wasm, embedded in the module graph (no file read at run time, works when compiled).
// A .js file because TypeScript cannot parse `import source` yet.
import source wasm from "esbuild-wasm/esbuild.wasm";

export default wasm;
