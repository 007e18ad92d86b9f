/**
 * The tests' fake GitHub: the one the demo ships (`demo/fake_github/`), re-exported here so the
 * tests keep importing it from beside them.
 *
 * @module
 */
export * from "../../demo/fake_github/mod.ts";
