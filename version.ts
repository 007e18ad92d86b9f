/** The-loop's version, kept equal to `deno.json`'s by a test. */
export const VERSION = "0.1.0";
