/**
 * The generated paths of a resolved config, by what they are for, including the control
 * records directory that has no key of its own (it sits in the registry directory).
 *
 * @module
 */
import { join } from "node:path";
import type { CliConfig } from "./types.ts";

/** Every generated path of a resolved config (all absolute). */
export interface StatePaths {
  root: string;
  registryDir: string;
  controlDir: string;
  pollStateFile: string;
  eventLog: string;
  webhookPidfile: string;
  pollPidfile: string;
  workspaceRoot: string;
}

/** The generated paths of `config`. */
export function statePaths(config: CliConfig): StatePaths {
  const routing = config.webhooks.ghWebhook.routing;
  return {
    root: config.state.root,
    registryDir: routing.registryDir,
    controlDir: join(routing.registryDir, "control"),
    pollStateFile: config.polling.stateFile,
    eventLog: config.eventLog.path,
    webhookPidfile: config.webhooks.ghWebhook.pidfile,
    pollPidfile: config.polling.pidfile,
    workspaceRoot: routing.workspace.root,
  };
}
