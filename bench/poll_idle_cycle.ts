/**
 * Bench (a): one idle poll cycle over 20 repos × 50 labelled items (10 of them pull requests, every
 * item with a comment, last changed an hour ago) against the fake GitHub, in process: the real
 * poller, GitHub client (ETag cache), router and ledger. One warm-up cycle (first sight), then
 * the idle cycle is measured: requests made, how many were answered 304, wall time, and whether
 * the ledger was written. Target: 20 requests, all 304, under 0.5 s (the original: 1,020 `gh`
 * runs, 26 s).
 *
 * @module
 */
import { join } from "node:path";
import type { DispatchOutcome } from "../dispatch/mod.ts";
import { parseControl } from "../dispatch/mod.ts";
import { NULL_SINK } from "../events/mod.ts";
import { GitHubClient } from "../github/mod.ts";
import { DEFAULT_EVENTS, Router } from "../ingress/mod.ts";
import { ControlDirView, Ledger, Poller, type PollSettings } from "../poll/mod.ts";
import { controlConfig, LABEL } from "../poll/_test_utils.ts";
import { ControlStore } from "../state/control.ts";
import { RegistryDir } from "../state/registry.ts";
import { FakeGitHub } from "../tests/fake_github/mod.ts";
import { round } from "./_stats.ts";

const REPOS = 20;
const ITEMS = 50;
const PULLS = 10;
const TOKEN = "bench-poll";
const TARGET = { requests: REPOS, not_modified: REPOS, wall_ms: 500 };

/** Runs the bench. */
export async function run(): Promise<Record<string, unknown>> {
  const gh = await FakeGitHub.start({ token: TOKEN });
  const root = await Deno.makeTempDir({ prefix: "the-loop-bench-poll-" });
  try {
    const repos = Array.from({ length: REPOS }, (_, i) => `bench/repo-${i}`);
    const hourAgo = Date.now() - 3_600_000;
    gh.world.clock = () => hourAgo;
    for (const repo of repos) {
      for (let i = 0; i < ITEMS; i++) {
        const item = i < PULLS
          ? gh.world.addPull(repo, { labels: [LABEL], user: "alice" })
          : gh.world.addIssue(repo, { labels: [LABEL], user: "alice" });
        gh.world.addComment(repo, item.number, "context", "alice");
      }
    }
    gh.world.clock = Date.now;
    const client = new GitHubClient({ apiUrl: gh.url, token: TOKEN });
    const registry = new RegistryDir(join(root, "sessions"));
    const delivered = {
      dispatch: (): Promise<DispatchOutcome> => Promise.resolve({ status: "delivered" }),
    };
    const router = new Router({
      dispatcher: delivered,
      sessions: registry,
      github: client,
      events: NULL_SINK,
      policy: { events: [...DEFAULT_EVENTS], authorizedUsers: ["alice"], autoExecuteLabel: LABEL },
    });
    const ledger = await Ledger.load(join(root, "poll-state.json"));
    const control = controlConfig(true);
    const poller = new Poller({
      gh: client,
      sink: router,
      ledger,
      sessions: registry,
      control: new ControlDirView(new ControlStore(join(root, "sessions"))),
      events: NULL_SINK,
      parseControl: (text) => parseControl(text, control),
    });
    const settings: PollSettings = {
      sources: [{ index: 0, repos, label: LABEL, issues: true, pullRequests: true }],
      intervalSeconds: 60,
      maxRetries: 3,
      authorizedUsers: ["alice"],
      authorizedBots: [],
      requireStartCommand: true,
      apiHost: "github.com",
    };
    const warm = await poller.cycle(settings);
    const writes = ledger.writes;
    gh.clearRequests();
    const start = performance.now();
    const idle = await poller.cycle(settings);
    const wallMs = performance.now() - start;
    const result = {
      repos: REPOS,
      items: REPOS * ITEMS,
      warmup_requests: warm.requests,
      requests: idle.requests,
      not_modified: idle.notModified,
      wall_ms: round(wallMs),
      ledger_writes: ledger.writes - writes,
      target_requests: TARGET.requests,
      target_not_modified: TARGET.not_modified,
      target_wall_ms: TARGET.wall_ms,
      original: { gh_runs: 1_020, wall_s: 26 },
      meets_target: idle.requests === TARGET.requests &&
        idle.notModified === TARGET.not_modified && wallMs < TARGET.wall_ms &&
        gh.requests.length === TARGET.requests,
    };
    return result;
  } finally {
    await gh.close();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
