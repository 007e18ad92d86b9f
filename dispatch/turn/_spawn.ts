/**
 * A new session for a work item, in this order: `work_item_start` once per arming (a
 * refusal disarms the item), the checkout (`workspace.enabled`), harness trust, the spawn prompt
 * and `session_spawn` (which may rewrite it or refuse the launch), the runner's spawn, the
 * registry (`session.registered`), `session.spawned`, `session_spawned`, and the announcement
 * (`session.announced`) unless a hook or `announce.enabled: false` says not to.
 *
 * @module
 */
import { messageOf } from "../../errors.ts";
import type { SessionRecord } from "../../state/registry.ts";
import { slugOf, webUrlOf } from "../../state/work_item.ts";
import type { HarnessName, HarnessUsage, HostedSession, RunLimits } from "../seams.ts";
import { afterRun, guardedAuthor, launchBreach, limitsFor, pauseForBudget } from "./_budget.ts";
import type { RoutedEvent } from "../types.ts";
import type { Handled, Turn } from "./turn.ts";
import { askSpawn, askSpawned, askStart, launchArgsOf } from "./_call_sites.ts";
import { announce, explainRefusal } from "./comments.ts";
import { spawnPrompt } from "./_render.ts";
import { tmuxSessionName } from "../runners/mod.ts";
import { enterLoop, loopContext, loopName } from "./_loop.ts";

/** The work item's browser URL: the event's when the event is its own, else built. */
function itemUrl(event: RoutedEvent): string {
  const own = event.linkedFrom ? undefined : event.item?.url;
  return own || webUrlOf(event.workItem);
}

/**
 * Asks `work_item_start` when this arming has not been asked yet. A refusal disarms the item
 * (its control record and marker cleared), posts one comment and settles: the Handled to return.
 */
async function ensureStarted(
  turn: Turn,
  o: { command: string; actor: string; harness: HarnessName },
): Promise<Handled | undefined> {
  const { startMarks, controlStore } = turn.deps;
  if (!(await startMarks.mark(turn.ref))) return undefined;
  const v = await askStart(turn, { ...o, loop: await loopName(turn) });
  if (v.proceed) return undefined;
  await controlStore.clear(turn.ref).catch(() => {});
  await startMarks.clear(turn.ref).catch(() => {});
  return await explainRefusal(turn, v, { point: "work_item_start", what: "start" });
}

/** Spawns a session for the turn's work item, `event` (its text maybe rewritten) the trigger. */
export async function spawnFor(
  turn: Turn,
  event: RoutedEvent,
  o: { command: string; actor: string },
): Promise<Handled> {
  const { deps, config } = turn;
  // a `harness:<name>` label on the item picks its harness; the record keeps it from here on
  const harness = (event.item?.harness ?? config.defaultHarness) as HarnessName;
  let adapter;
  try {
    adapter = deps.adapterFor(harness);
  } catch (err) {
    const why = event.item?.harness
      ? new Error(`the label harness:${event.item.harness} names no harness: ${messageOf(err)}`)
      : err;
    return { outcome: turn.failed("harness", why, false) };
  }
  const refused = await ensureStarted(turn, { ...o, harness });
  if (refused) return refused;
  // the item's launches of the day (kept from its earlier sessions): a respawn storm pauses
  const previous = await deps.sessions.get?.(turn.ref).catch(() => undefined);
  const storm = launchBreach(turn, previous);
  if (storm) return (await pauseForBudget(turn, storm, [{ turn, event }], undefined))!;
  turn.pickup();
  const item = event.workItem;
  let cwd = config.spawnWorkdir || deps.spawnWorkdir;
  if (deps.workspaces && config.workspace.enabled) {
    const workspaces = deps.workspaces;
    try {
      cwd = (await turn.harness("preparing the workspace", (signal) =>
        workspaces.prepare(item, { signal }))).cwd;
    } catch (err) {
      return { outcome: turn.failed("workspace", err) };
    }
  }
  // what trust reads: every flag the launch gets (an approval mode of bypass asks for its disclaimer)
  const extraArgs = launchArgsOf(turn, harness);
  if (deps.trust && config.harnessTrust.enabled) {
    await deps.trust.prepare({ harness, cwd, extraArgs }).catch(() => {});
  }
  const launch = { harness, cwd, respawn: false };
  const context = await loopContext(turn);
  const v = await askSpawn(turn, {
    ...launch,
    prompt: spawnPrompt(turn, event, context),
    loop: await loopName(turn),
  });
  if (!v.proceed) {
    return await explainRefusal(turn, v, { point: "session_spawn", what: "launch" });
  }
  const slug = slugOf(item);
  const hosted: HostedSession = {
    ref: item.ref,
    slug,
    harness,
    harnessSessionId: adapter.ids.kind === "preassign" ? deps.uuid() : "",
    cwd,
    tmuxTarget: deps.runner.kind === "tmux" ? tmuxSessionName(slug) : "",
    ...(deps.sessionEnv ? { env: deps.sessionEnv(item.ref) } : {}),
  };
  let result;
  let use: HarnessUsage | undefined;
  const limits = limitsFor(turn, undefined);
  try {
    result = await turn.harness(
      `spawning ${harness}`,
      (signal) =>
        deps.runner.spawn(hosted, v.prompt, {
          resume: false,
          signal,
          ...(limits ? { limits } : {}),
          onUsage: (u) => use = u,
        }),
    );
  } catch (err) {
    return { outcome: turn.failed("spawn", err) };
  }
  let record: SessionRecord;
  let touched: SessionRecord | undefined;
  try {
    record = await deps.sessions.register({
      item,
      harness,
      harnessSessionId: result.harnessSessionId || hosted.harnessSessionId,
      cwd,
      tmuxTarget: result.tmuxTarget,
      url: itemUrl(event),
      ...(use ? { use } : {}),
    });
    // the spawn is the session's first delivery (and its trigger's author's first word)
    const author = guardedAuthor(event);
    touched = await deps.sessions.touch(
      item.ref,
      event.deliveryId,
      author ? { by: [author] } : {},
    );
  } catch (err) {
    // a harness nobody can find is worse than none: end it, and let the delivery retry
    await deps.runner.close({ ...hosted, tmuxTarget: result.tmuxTarget }).catch(() => {});
    return { outcome: turn.failed("register", err) };
  }
  turn.emit("session.spawned", {
    harness,
    harness_session_id: record.harnessSessionId,
    runner: deps.runner.kind,
    tmux_target: record.tmuxTarget,
    gh_event: event.ghEvent,
    title: (event.linkedFrom ? undefined : event.item?.title) ?? "",
  });
  const after = await askSpawned(turn, {
    ...launch,
    harnessSessionId: record.harnessSessionId,
    tmuxTarget: record.tmuxTarget,
  });
  if (after.announce && config.announce.enabled) await announce(turn, record);
  await enterLoop(turn, record);
  // the spawn's run took a sum to its limit: it was the last before a resume
  const spent = touched ? afterRun(turn, touched, undefined) : undefined;
  if (spent) await pauseForBudget(turn, spent, [], touched);
  return { outcome: { status: "delivered", detail: "spawned" } };
}

/**
 * Relaunches a live session whose harness is gone, on `prompt` (the event prompt): after
 * `session_spawn` (respawn), resuming the conversation when `tmux.resumeOnRespawn` allows. The
 * one place a harness is launched again: a runner's `deliver` never launches, it answers `false`.
 * No announcement: the one already posted names the same tmux session.
 */
export async function respawn(
  turn: Turn,
  hosted: HostedSession,
  prompt: string,
  o: { limits?: RunLimits; onUsage?: (u: HarnessUsage) => void } = {},
): Promise<Handled | undefined> {
  const { deps, config } = turn;
  const v = await askSpawn(turn, {
    harness: hosted.harness,
    cwd: hosted.cwd,
    respawn: true,
    prompt,
  });
  if (!v.proceed) {
    return await explainRefusal(turn, v, { point: "session_spawn", what: "relaunch" });
  }
  const resume = deps.runner.kind === "tmux" ? config.tmux.resumeOnRespawn : true;
  const relaunched = deps.sessionEnv ? { ...hosted, env: deps.sessionEnv(hosted.ref) } : hosted;
  let result;
  try {
    result = await turn.harness(
      `respawning ${hosted.harness}`,
      (signal) =>
        deps.runner.spawn(relaunched, v.prompt, {
          resume,
          signal,
          ...(o.limits ? { limits: o.limits } : {}),
          ...(o.onUsage ? { onUsage: o.onUsage } : {}),
        }),
    );
  } catch (err) {
    return { outcome: turn.failed("respawn", err) };
  }
  const id = result.harnessSessionId || hosted.harnessSessionId;
  const patch = {
    ...(id !== hosted.harnessSessionId ? { harnessSessionId: id } : {}),
    ...(result.tmuxTarget && result.tmuxTarget !== hosted.tmuxTarget
      ? { tmuxTarget: result.tmuxTarget }
      : {}),
    // the relaunch counts against `spawnsPerDay`
    launch: true as const,
  };
  await deps.sessions.update(turn.ref, patch).catch((err) =>
    turn.emit("dispatch.registry_failed", { error: messageOf(err) }, "warning")
  );
  turn.emit("session.respawned", {
    harness: hosted.harness,
    harness_session_id: id,
    resumed: resume && id === hosted.harnessSessionId,
  });
  return undefined;
}
