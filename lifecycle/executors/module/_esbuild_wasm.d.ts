/** esbuild's compiled wasm module. */
declare const wasm: WebAssembly.Module;
export default wasm;
