/**
 * The harness adapters: the argv that boots, resumes or runs headless each of the five coding
 * agents — `claude` (Claude Code), `cursor-agent`, `codex`, `gemini` (Gemini CLI) and `opencode`
 * (`docs/harnesses.md`: one section each). An adapter returns the arguments that follow its
 * `program`; the prompt is always one element of them (never through a shell); the operator's
 * `harnessArgs.<harness>` win over the adapter's own flags (approval, model, effort, trust).
 *
 * @module
 */
import type { RoutingConfig } from "../../config/types.ts";
import type { HarnessAdapter, HarnessMode, HarnessName, HarnessSettings } from "../seams.ts";
import { HARNESS_NAMES } from "../seams.ts";
import { claudeAdapter } from "./claude.ts";
import { codexAdapter } from "./codex.ts";
import { cursorAdapter } from "./cursor.ts";
import { geminiAdapter } from "./gemini.ts";
import { opencodeAdapter } from "./opencode.ts";

export { claudeAdapter } from "./claude.ts";
export { cursorAdapter } from "./cursor.ts";
export { codexAdapter } from "./codex.ts";
export { geminiAdapter } from "./gemini.ts";
export { opencodeAdapter } from "./opencode.ts";

/** Every adapter, by harness name. */
export const ADAPTERS: Readonly<Record<HarnessName, HarnessAdapter>> = {
  claude: claudeAdapter,
  cursor: cursorAdapter,
  codex: codexAdapter,
  gemini: geminiAdapter,
  opencode: opencodeAdapter,
};

/** The adapter of a harness. */
export function adapterFor(name: HarnessName): HarnessAdapter {
  const adapter = Object.hasOwn(ADAPTERS, name) ? ADAPTERS[name] : undefined;
  if (!adapter) {
    throw new Error(`unknown harness "${name}": use one of ${HARNESS_NAMES.join(", ")}`);
  }
  return adapter;
}

/** Whether `name` is a harness the-loop drives. */
export function isHarnessName(name: string): name is HarnessName {
  return (HARNESS_NAMES as readonly string[]).includes(name);
}

/**
 * Whether `id` can be handed back to `name`'s resume: its adapter's check (a UUID for claude,
 * gemini and codex, a plain token for cursor and opencode). An empty or malformed recorded id
 * means a fresh boot.
 */
export function isResumableId(name: HarnessName, id: string): boolean {
  return adapterFor(name).isResumableId(id);
}

/** What the routing config says of every run of `h` beside its `harnessArgs`. */
export function harnessSettings(
  routing: Pick<RoutingConfig, "approvalMode" | "harnessModels" | "harnessTrust">,
  h: HarnessName,
): HarnessSettings {
  const m = routing.harnessModels?.[h] ?? {};
  return {
    approvalMode: routing.approvalMode ?? "auto-edit",
    ...(m.model ? { model: m.model } : {}),
    ...(m.effort ? { effort: m.effort } : {}),
    trust: routing.harnessTrust?.enabled ?? false,
  };
}

/**
 * Every flag a launch of `h` is given, the adapter's own first (as the runners pass them: what
 * `session_spawn` reports as `harness_args`, and what harness trust reads).
 */
export function launchArgs(
  routing: Pick<RoutingConfig, "approvalMode" | "harnessModels" | "harnessTrust" | "harnessArgs">,
  h: HarnessName,
  mode: HarnessMode,
): string[] {
  const extraArgs = [...(routing.harnessArgs[h] ?? [])];
  const own = adapterFor(h).settingsArgs({
    extraArgs,
    settings: harnessSettings(routing, h),
    mode,
  });
  return [...own, ...extraArgs];
}
