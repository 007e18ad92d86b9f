/**
 * The config `the-loop demo` writes for its daemon (pure: the values in, the YAML out): GitHub
 * is the demo's fake (`github.apiUrl`, the token in `THE_LOOP_DEMO_TOKEN`), routing on with the
 * demo's one authorized person, workspaces cloned from the fake's git server, harness trust off
 * (the demo agent has no dialog, and your `~/.claude.json` is left alone), the poller every
 * second on `octo/demo`, and the `demo` loop: the agent's `work`, then a person's `review`.
 *
 * @module
 */
import { DEMO_REPO, DEMO_USER } from "./fake_github/mod.ts";

/** The variable holding the daemon's token for the fake GitHub. */
export const DEMO_TOKEN_ENV = "THE_LOOP_DEMO_TOKEN";
/** The loop the demo's item walks. */
export const DEMO_LOOP = "demo";

/** The values of {@linkcode demoConfig}. */
export interface DemoConfigOptions {
  /** The fake GitHub's URL, e.g. `http://127.0.0.1:41234`. */
  apiUrl: string;
  runner: "tmux" | "process";
  /** The status page's port on 127.0.0.1 (the daemon serves it: `ui.port`). */
  uiPort: number;
  /** Seconds between poll cycles; default 1. */
  intervalSeconds?: number;
}

/** A string as a YAML double-quoted scalar. */
const q = (s: string) => JSON.stringify(s);

/** The demo's `cli-config.yaml`. */
export function demoConfig(o: DemoConfigOptions): string {
  const ui = `ui:\n  enabled: true\n  host: 127.0.0.1\n  port: ${o.uiPort}\n`;
  return `# Written by \`the-loop demo\` for its own daemon; removed when the demo stops.
github:
  apiUrl: ${q(o.apiUrl)}
  tokenEnv: ${DEMO_TOKEN_ENV}
webhooks:
  ghWebhook:
    routing:
      enabled: true
      authorizedUsers: [${DEMO_USER}]
      spawnOnUnmatched: labeled
      defaultHarness: claude
      loop: ${DEMO_LOOP}
      runner: ${o.runner}
      harnessTrust:
        enabled: false
      tmux:
        harnessKillGraceSeconds: 2
      workspace:
        enabled: true
        remote: ${q(`${o.apiUrl}/{owner}/{repo}.git`)}
        cleanupOnClose: false
polling:
  intervalSeconds: ${o.intervalSeconds ?? 1}
  sources:
    - provider: github
      repos: [${DEMO_REPO}]
loops:
  ${DEMO_LOOP}:
    start: work
    nodes:
      work:
        phase: working
        actor: agent
        prompt: >
          Fix the flaky login test (tests/login_test.sh). Ask a person first whether to retry
          the flaky step or fix its timing, then commit your fix.
        next: { done: review }
      review:
        phase: in-review
        actor: human
        next: { approve: done, request-changes: work }
      done:
        terminal: true
${ui}`;
}
