/**
 * `the-loop demo`: the whole loop, offline, in one command — the fake GitHub with the demo world
 * and a real git repository (`fake_github/`), the daemon routed at it, the demo agent standing in
 * for a harness (`agent.ts`, reached through the `claude` shim of `shim.ts`), on tmux when it is
 * installed. See `docs/demo.md`.
 *
 * ```ts
 * const demo = await startDemo({ env: (k) => Deno.env.get(k) });
 * console.log(demoGuide(demo.run).join("\n"));
 * await demo.stop();
 * ```
 *
 * @module
 */
export { demoGuide, type DemoOptions, type RunningDemo, startDemo } from "./start.ts";
export { type DemoRun, demoRunPath, readDemoRun } from "./run_file.ts";
export { demoComment, demoSetState } from "./client.ts";
export { parseAgentArgs, runDemoAgent } from "./agent.ts";
export { DEMO_QUESTION } from "./agent_brain.ts";
export { DEMO_LOOP, demoConfig } from "./config.ts";
export { DEMO_ITEM, DEMO_REPO, DEMO_USER } from "./fake_github/mod.ts";
