/**
 * Gherkin-style scenarios (`Feature:`, `Scenario:`, `Given`/`When`/`Then`/`And`/`But`,
 * `Requirement:`) written in the comments of a repository's tests: `the-loop scenarios`'s
 * domain. `parse.ts` is the pure core (one file's text in, its scenarios out), `comments.ts` the
 * comment lexer under it, `find.ts` the shell (globs, the walk, the files read).
 *
 * ```ts
 * import { chooseGlobs, findScenarios } from "../repo/scenarios/mod.ts";
 * const { globs } = chooseGlobs(flags.glob, await readHarnessConfig(root));
 * const { scenarios } = await findScenarios({ root, globs });
 * ```
 *
 * @module
 */
export { type CommentBlock, commentBlocks, type CommentSyntax, syntaxOf } from "./comments.ts";
export {
  type ParseOptions,
  parseScenarios,
  type Scenario,
  scenariosIn,
  type Step,
  type StepKeyword,
} from "./parse.ts";
export {
  chooseGlobs,
  DEFAULT_GLOBS,
  type FindOptions,
  findScenarios,
  type Found,
  type Globs,
  type GlobSource,
  matchesAny,
  MAX_FILE_BYTES,
  SKIPPED_DIRS,
} from "./find.ts";
