/**
 * What every `sessions` subcommand starts from: the work-item ref from argv (a garbage ref is a
 * usage error, exit 2), the config, the event log (source `sessions`, or `cli` for the control
 * verbs) and the registry under `routing.registryDir`.
 *
 * @module
 */
import type { LoadedConfig } from "../../config/mod.ts";
import type { SessionStore } from "../../dispatch/mod.ts";
import { UsageError } from "../../errors.ts";
import { EventLog } from "../../events/mod.ts";
import { ControlStore } from "../../state/control.ts";
import { RegistryDir } from "../../state/registry.ts";
import { parseWorkItem, type WorkItemRef } from "../../state/work_item.ts";
import { loadCliConfig } from "../_config.ts";
import type { CliContext } from "../context.ts";

/** The forms a work-item ref takes, for usage errors. */
const REF_FORMS = "github:OWNER/REPO#N or github:HOST/OWNER/REPO#N (GitHub Enterprise)";

/** Parses a ref from argv; a usage error (exit 2) naming the expected forms when it is not one. */
export function refArg(text: string): WorkItemRef {
  const item = parseWorkItem(text);
  if (!item) throw new UsageError(`"${text}" is not a work item ref: expected ${REF_FORMS}`);
  return item;
}

/** The registry a command works on. */
export interface Opened {
  loaded: LoadedConfig;
  events: EventLog;
  store: SessionStore;
  control: ControlStore;
}

/** Loads the config and opens the registry, its control records and the event log. */
export async function openSessions(
  ctx: CliContext,
  source: "sessions" | "cli",
): Promise<Opened> {
  const loaded = await loadCliConfig(ctx);
  const { config } = loaded;
  const events = new EventLog({
    path: config.eventLog.path,
    source,
    enabled: config.eventLog.enabled,
    warn: (m) => ctx.warn(m + "\n"),
  });
  const dir = config.webhooks.ghWebhook.routing.registryDir;
  const registry = new RegistryDir(dir, { warn: (m) => ctx.warn(`warning: ${m}\n`) });
  // the dispatch package is imported here, when a sessions command runs, not at every CLI start
  const { SessionStore } = await import("../../dispatch/mod.ts");
  const store = new SessionStore({ registry, events });
  return { loaded, events, store, control: new ControlStore(dir) };
}
