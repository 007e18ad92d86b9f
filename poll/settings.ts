/**
 * What one poll cycle works from, taken from the CLI config before each cycle (so an edit to the
 * sources, the interval or the routing policy applies on the next cycle).
 *
 * @module
 */
import type { CliConfig } from "../config/mod.ts";
import { normalizeLogin } from "../ingress/mod.ts";

/** One source, its label resolved. */
export interface SourceSettings {
  /** Its index in `polling.sources` (for messages). */
  index: number;
  repos: string[];
  /** The label an item must carry; `""` when neither the source nor the routing names one. */
  label: string;
  issues: boolean;
  pullRequests: boolean;
}

/** The settings of one cycle. */
export interface PollSettings {
  sources: SourceSettings[];
  intervalSeconds: number;
  maxRetries: number;
  /** `routing.authorizedUsers`, lower-cased. */
  authorizedUsers: string[];
  /** `routing.authorizedBots`, lower-cased (a bot is authorized only through this list). */
  authorizedBots: string[];
  /** `routing.control.requireStartCommand` (only with control enabled). */
  requireStartCommand: boolean;
  /** The API's web host (github.com for api.github.com), for telling which sessions are ours. */
  apiHost: string;
}

/** The web host that goes with an API URL: `github.com` for api.github.com, else its host. */
export function apiHostOf(apiUrl: string): string {
  try {
    const host = new URL(apiUrl).host.toLowerCase();
    return host === "api.github.com" ? "github.com" : host;
  } catch {
    return "github.com";
  }
}

/** The settings a config gives. */
export function settingsFromConfig(config: CliConfig): PollSettings {
  const routing = config.webhooks.ghWebhook.routing;
  return {
    sources: config.polling.sources.map((s, index) => ({
      index,
      repos: [...s.repos],
      label: s.label || routing.autoExecuteLabel,
      issues: s.monitor.issues,
      pullRequests: s.monitor.pullRequests,
    })),
    intervalSeconds: config.polling.intervalSeconds,
    maxRetries: Math.max(1, config.polling.maxRetries ?? 3),
    // compared as the router compares them (one rule for both: `@alice` is alice)
    authorizedUsers: routing.authorizedUsers.map(normalizeLogin),
    authorizedBots: routing.authorizedBots.map(normalizeLogin),
    requireStartCommand: routing.control.enabled && routing.control.requireStartCommand,
    apiHost: apiHostOf(config.github.apiUrl),
  };
}

/** Problems that make a config poll nothing (for a warning at start and on reload). */
export function pollingProblems(settings: PollSettings): string[] {
  const out: string[] = [];
  if (settings.sources.length === 0) {
    out.push("polling.sources is empty: nothing is polled until the config names a source");
  }
  for (const s of settings.sources) {
    if (s.repos.length === 0) {
      out.push(`polling.sources[${s.index}].repos is empty: this source finds nothing`);
    }
    if (!s.label) {
      out.push(
        `polling.sources[${s.index}] has no label and routing.autoExecuteLabel is empty: ` +
          "this source is skipped (set a label)",
      );
    }
  }
  return out;
}
