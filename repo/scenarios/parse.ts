/**
 * Gherkin-style scenarios in comments: the pure core of `the-loop scenarios`. A scenario is a
 * `Scenario:` (or `Scenario Outline:` / `Scenario Template:`) line and the `Given` / `When` /
 * `Then` / `And` / `But` steps after it in the same comment block. How a line is read (each line
 * trimmed first; keywords are case-sensitive, as in Gherkin):
 *
 * | line                                   | effect                                                                               |
 * | -------------------------------------- | ------------------------------------------------------------------------------------ |
 * | `Feature: <name>`                      | the feature of every scenario after it in the file, until the next `Feature:`        |
 * | `Scenario: <name>`                     | starts a scenario (its line is the scenario's line); ends the one before             |
 * | `Scenario Outline:` `Scenario Template:` | as `Scenario:`, with `outline: true`                                              |
 * | `Given` `When` `Then` `And` `But` + text | a step of the open scenario (ignored when none is open)                          |
 * | `Requirement: <id>`                    | in a scenario: its requirement; after a `Feature:` in the same block, before any scenario: every scenario of that feature's default; else: the next scenario's in this block |
 * | `Background:` `Rule:`                  | ends the open scenario (a background's steps belong to no scenario)                 |
 * | anything else                          | ignored (descriptions, `Examples:` and their tables, other prose)                    |
 *
 * A scenario ends with its comment block; a `Scenario:` outside any `Feature:` has feature null.
 *
 * @module
 */
import { type CommentBlock, commentBlocks, type CommentSyntax } from "./comments.ts";

/** A step keyword. */
export type StepKeyword = "Given" | "When" | "Then" | "And" | "But";

/** One step of a scenario. */
export interface Step {
  keyword: StepKeyword;
  /** The step's text after its keyword, trimmed. */
  text: string;
  /** 1-based line in the file. */
  line: number;
}

/** One scenario found in a file. */
export interface Scenario {
  /** The `Feature:` it falls under; null when none came before it in the file. */
  feature: string | null;
  /** The scenario's name (the text after `Scenario:`). */
  scenario: string;
  /** Written as `Scenario Outline:` / `Scenario Template:`. */
  outline: boolean;
  /** The file, as the caller named it (the CLI: relative to the root, `/`-separated). */
  file: string;
  /** 1-based line of its `Scenario:`. */
  line: number;
  /** Its `Requirement:` (or its feature's); null when none. */
  requirement: string | null;
  steps: Step[];
}

/** What {@linkcode parseScenarios} takes. */
export interface ParseOptions {
  /** The file's name, copied into every scenario. */
  file: string;
  /** How its comments are written (see `comments.ts`'s `syntaxOf`). */
  syntax: CommentSyntax;
}

const HEADING =
  /^(Feature|Scenario Outline|Scenario Template|Scenario|Requirement|Background|Rule):(.*)$/;
const STEP = /^(Given|When|Then|And|But)\s+(\S.*)$/;

/** Every scenario in `text`'s comments, in the order they appear. */
export function parseScenarios(text: string, opts: ParseOptions): Scenario[] {
  return scenariosIn(commentBlocks(text, opts.syntax), opts.file);
}

/** Every scenario in `blocks` (a file's comment blocks, in order). */
export function scenariosIn(blocks: readonly CommentBlock[], file: string): Scenario[] {
  const out: Scenario[] = [];
  let feature: string | null = null;
  let featureRequirement: string | null = null;
  for (const block of blocks) {
    let open: Scenario | undefined;
    let featureHere = false; // a Feature: line in this block, and no scenario since
    let pending: string | null = null; // a Requirement: waiting for this block's next scenario
    for (const { line, text } of block) {
      const t = text.trim();
      const heading = HEADING.exec(t);
      if (heading) {
        const [, keyword, rest] = heading;
        const name = rest.trim();
        if (keyword === "Feature") {
          feature = name;
          featureRequirement = null;
          featureHere = true;
          open = undefined;
          pending = null;
        } else if (keyword === "Requirement") {
          if (open) open.requirement = name || null;
          else if (featureHere) featureRequirement = name || null;
          else pending = name || null;
        } else if (keyword === "Background" || keyword === "Rule") {
          open = undefined;
        } else {
          open = {
            feature,
            scenario: name,
            outline: keyword !== "Scenario",
            file,
            line,
            requirement: pending ?? featureRequirement,
            steps: [],
          };
          out.push(open);
          featureHere = false;
          pending = null;
        }
        continue;
      }
      const step = STEP.exec(t);
      if (step && open) {
        open.steps.push({ keyword: step[1] as StepKeyword, text: step[2].trim(), line });
      }
    }
  }
  return out;
}
