/**
 * The harness adapters: the argv that boots, resumes or runs headless `claude` (Claude Code) and
 * `cursor-agent`. An adapter returns the arguments that follow its `program`; the prompt is always
 * one element of them (never through a shell), and `harnessArgs.<harness>` from the config come
 * first, as `extraArgs`.
 *
 * @module
 */
import type { HarnessAdapter, HarnessName } from "../seams.ts";
import { claudeAdapter } from "./claude.ts";
import { cursorAdapter } from "./cursor.ts";
import { isToken, isUuid } from "./_shared.ts";

export { claudeAdapter } from "./claude.ts";
export { cursorAdapter } from "./cursor.ts";

/** The adapter of a harness. */
export function adapterFor(name: HarnessName): HarnessAdapter {
  switch (name) {
    case "claude":
      return claudeAdapter;
    case "cursor":
      return cursorAdapter;
    default:
      throw new Error(`unknown harness "${name}": use claude or cursor`);
  }
}

/**
 * Whether `id` can be handed to `--resume`: a UUID for claude, a plain token (letters, digits,
 * `._:-`, no leading dash) for cursor. An empty or malformed recorded id means a fresh boot.
 */
export function isResumableId(name: HarnessName, id: string): boolean {
  return name === "claude" ? isUuid(id) : isToken(id);
}
