/**
 * `poll start --dry-run`: one cycle that reads GitHub and writes nothing — no ledger, no comment
 * or reaction on GitHub, no journal, no control record, no event log, no ETag cache, no lock —
 * and prints what it would hand the dispatcher (work item, kind, actor and why) and what the
 * dispatcher would then do with it: spawn, deliver, apply a command, close — with the prompt each
 * spawn and delivery would send, after the lifecycle hooks had their say (they run; nothing is
 * spawned or posted). The safe first thing to run.
 *
 * @module
 */
import type { LoadedConfig } from "../../config/mod.ts";
import {
  type DispatchOutcome,
  openDryRun,
  parseControl,
  type RoutedEvent,
} from "../../dispatch/mod.ts";
import { NULL_SINK } from "../../events/mod.ts";
import { GitHubClient } from "../../github/mod.ts";
import { openIngress } from "../../ingress/mod.ts";
import {
  ControlDirView,
  Ledger,
  Poller,
  pollingProblems,
  settingsFromConfig,
} from "../../poll/mod.ts";
import { type CliContext, println } from "../context.ts";
import { configRef, printEnvelope } from "../_envelope.ts";
import { table } from "../_output.ts";

/** One would-be hand-over. */
interface Row {
  workItem: string;
  kind: string;
  actor: string | null;
  why: string;
  deliveryId: string;
}

/** Options of {@linkcode dryRun}. */
export interface DryRunOptions {
  ctx: CliContext;
  loaded: LoadedConfig;
  token: string;
  stateFile: string;
  format: "text" | "json";
}

/** Runs the dry cycle and prints it. */
export async function dryRun(o: DryRunOptions): Promise<void> {
  const { ctx, loaded } = o;
  const config = loaded.config;
  const routing = config.webhooks.ghWebhook.routing;
  const settings = settingsFromConfig(config);
  for (const w of pollingProblems(settings)) {
    ctx.warn(`poll: warning: ${w}\n`);
  }
  const handed: RoutedEvent[] = [];
  const warn = (m: string) => ctx.warn(`poll: warning: ${m}\n`);
  // decides as the daemon would (hooks asked, prompts rendered), does nothing
  const dry = routing.dispatcher === "journal" ? undefined : await openDryRun({
    config,
    events: NULL_SINK,
    env: ctx.env,
    warn,
    cwd: ctx.cwd,
  });
  const recorder = {
    dispatch(event: RoutedEvent): Promise<DispatchOutcome> {
      handed.push(event);
      return dry ? dry.dispatch(event) : Promise.resolve({ status: "delivered" });
    },
  };
  const ingress = await openIngress({
    loaded,
    env: ctx.env,
    cwd: ctx.cwd,
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
  const rows: Row[] = handed.map((e) => ({
    workItem: e.workItem.ref,
    kind: e.kind,
    actor: e.actor,
    why: why.get(e.deliveryId) ?? "",
    deliveryId: e.deliveryId,
  }));
  if (o.format === "json") {
    printEnvelope(ctx, "poll start", { ok: true, config: configRef(loaded) }, {
      dryRun: true,
      handovers: rows,
      actions: dry?.records ?? [],
      cycle: {
        itemsSeen: report.itemsSeen,
        errors: report.errors,
        requests: report.requests,
        notModified: report.notModified,
      },
    });
    return;
  }
  println(
    ctx,
    `poll --dry-run: ${report.itemsSeen} labelled item(s) seen, ${rows.length} hand-over(s), ` +
      `${report.errors} error(s), ${report.requests} GitHub request(s); nothing was written`,
  );
  if (rows.length === 0) return;
  ctx.write(
    table(
      ["WORK ITEM", "KIND", "ACTOR", "WHY"],
      rows.map((r) => [r.workItem, r.kind, r.actor ?? "-", r.why]),
    ),
  );
  for (const a of dry?.records ?? []) {
    const what = a.action === "command"
      ? `${a.command} (${a.status})`
      : a.action === "comment"
      ? "a comment on the item"
      : a.action;
    println(ctx, "");
    println(ctx, `would ${what}: ${a.workItem}`);
    const body = a.prompt ?? a.text;
    if (body) println(ctx, body.split("\n").map((l) => `  | ${l}`).join("\n"));
  }
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
