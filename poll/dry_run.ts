/**
 * `poll start --dry-run`'s cycle: one cycle that reads GitHub and writes nothing — no ledger, no
 * comment or reaction on GitHub, no journal, no control record, no event log, no ETag cache, no
 * lock. It returns what it would hand the dispatcher (work item, kind, actor and why) and what the
 * dispatcher would then do with it: spawn, deliver, apply a command, close — with the prompt each
 * spawn and delivery would send, after the lifecycle hooks had their say (they run; nothing is
 * spawned or posted). The command (`commands/poll/_dry_run.ts`) prints it.
 *
 * @module
 */
import type { LoadedConfig } from "../config/mod.ts";
import {
  type DispatchOutcome,
  type DryRunRecord,
  openDryRun,
  parseControl,
  type RoutedEvent,
} from "../dispatch/mod.ts";
import type { EnvReader } from "../config/mod.ts";
import { NULL_SINK } from "../events/mod.ts";
import type { GitHubClient } from "../github/mod.ts";
import { openIngress } from "../ingress/mod.ts";
import { ControlDirView } from "./control_view.ts";
import { Ledger } from "./ledger.ts";
import { type CycleReport, Poller } from "./poller.ts";
import { pollingProblems, settingsFromConfig } from "./settings.ts";

/** One would-be hand-over. */
export interface DryHandover {
  workItem: string;
  kind: string;
  actor: string | null;
  why: string;
  deliveryId: string;
}

/** What a dry cycle saw and would have done. */
export interface DryCycle {
  handovers: DryHandover[];
  /** What the dispatcher would do (none with `routing.dispatcher: journal`). */
  actions: DryRunRecord[];
  report: CycleReport;
}

/** Options of {@linkcode dryCycle}. */
export interface DryCycleOptions {
  loaded: LoadedConfig;
  token: string;
  /** The ledger, read and never written. */
  stateFile: string;
  env: EnvReader;
  cwd: string;
  /** Told each warning (a source that polls nothing, a policy warning), without a prefix. */
  warn(message: string): void;
}

/** Runs the dry cycle. */
export async function dryCycle(o: DryCycleOptions): Promise<DryCycle> {
  const { loaded, warn } = o;
  const config = loaded.config;
  const routing = config.webhooks.ghWebhook.routing;
  const settings = settingsFromConfig(config);
  for (const w of pollingProblems(settings)) warn(w);
  const handed: RoutedEvent[] = [];
  // decides as the daemon would (hooks asked, prompts rendered), does nothing
  const dry = routing.dispatcher === "journal" ? undefined : await openDryRun({
    config,
    events: NULL_SINK,
    env: o.env,
    warn,
    cwd: o.cwd,
    locate: loaded.locate,
    configPath: loaded.path,
  });
  const recorder = {
    dispatch(event: RoutedEvent): Promise<DispatchOutcome> {
      handed.push(event);
      return dry ? dry.dispatch(event) : Promise.resolve({ status: "delivered" });
    },
  };
  const ingress = await openIngress({
    loaded,
    env: o.env,
    cwd: o.cwd,
    token: o.token,
    events: NULL_SINK,
    warn,
    dispatcher: recorder,
    ephemeral: true, // no ETag cache file
  });
  const { github: gh, registry, control, router } = ingress;
  const why = new Map<string, string>();
  const poller = new Poller({
    gh: { ...readOnly(gh), takeStats: () => gh.takeStats() },
    sink: router,
    ledger: await Ledger.load(o.stateFile, { readOnly: true }),
    sessions: registry,
    control: new ControlDirView(control),
    events: NULL_SINK,
    parseControl: (text) => parseControl(text, routing.control),
    dryRun: true,
    onHandover: (h) => why.set(h.deliveryId, h.why),
  });
  const report = await poller.cycle(settings);
  return {
    handovers: handed.map((e) => ({
      workItem: e.workItem.ref,
      kind: e.kind,
      actor: e.actor,
      why: why.get(e.deliveryId) ?? "",
      deliveryId: e.deliveryId,
    })),
    actions: dry?.records ?? [],
    report,
  };
}

/** The reads of a client, and a write that refuses (a dry run posts nothing). */
function readOnly(gh: GitHubClient) {
  return {
    listIssues: gh.listIssues.bind(gh),
    getIssue: gh.getIssue.bind(gh),
    listIssueComments: gh.listIssueComments.bind(gh),
    getPull: gh.getPull.bind(gh),
    listReviews: gh.listReviews.bind(gh),
    listReviewComments: gh.listReviewComments.bind(gh),
    closingIssues: gh.closingIssues.bind(gh),
    commentEditors: gh.commentEditors.bind(gh),
    createComment: (): never => {
      throw new Error("a dry run posts nothing");
    },
  };
}
