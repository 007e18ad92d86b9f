/**
 * The config's token rules, for the floors above that check what a config names: is a string
 * token-shaped ({@linkcode looksLikeToken}), and masking tokens in text a problem quotes
 * ({@linkcode maskTokens}). Cheap to import: no YAML, no schema.
 *
 * ```ts
 * looksLikeToken("ghp_…"); // true: refuse it where a variable's NAME belongs
 * maskTokens(`unknown key "ghp_…"`); // 'unknown key "[redacted]"'
 * ```
 *
 * @module
 */
export { looksLikeToken, MASK, maskProblem, maskTokens, tokenNotName } from "./_secrets.ts";
