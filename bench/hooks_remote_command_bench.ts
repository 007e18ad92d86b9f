/**
 * Per-call overhead of the command and remote hook executors: a trivial command hook
 * (`/bin/sh -c 'cat >/dev/null'`, spawned in its own process group each call) and a loopback
 * JSON-RPC hook against an in-process server that answers `null`.
 *
 * @module
 */
import { createCommandExecutor } from "../lifecycle/command/mod.ts";
import { createRemoteExecutor } from "../lifecycle/remote/mod.ts";
import type { Executor } from "../lifecycle/executor.ts";

const PARAMS = { work_item: { ref: "github:acme/app#42" }, proceed: true, prompt: "x".repeat(512) };

/** The p-th percentile (0..100) of sorted `xs`, nearest rank. */
function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

async function time(ex: Executor, calls: number, warmup: number) {
  for (let i = 0; i < warmup; i++) await ex.call("session_spawn", PARAMS, { timeoutMs: 10_000 });
  const ms: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    await ex.call("session_spawn", PARAMS, { timeoutMs: 10_000 });
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { calls, p50_ms: round(percentile(ms, 50)), p99_ms: round(percentile(ms, 99)) };
}

/** The same command spawned bare with `Deno.Command` (no group, no env, no checks): a baseline. */
async function rawSpawn(calls: number) {
  const input = new TextEncoder().encode(
    JSON.stringify({ point: "session_spawn", context: PARAMS }),
  );
  const ms: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    const child = new Deno.Command("/bin/sh", {
      args: ["-c", "cat >/dev/null"],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const w = child.stdin.getWriter();
    await w.write(input);
    await w.close();
    await child.output();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { calls, p50_ms: round(percentile(ms, 50)), p99_ms: round(percentile(ms, 99)) };
}

/** Measures both executors; returns the figures for `deno task bench`. */
export async function run(): Promise<Record<string, unknown>> {
  const command = createCommandExecutor({
    name: "bench-command",
    argv: ["/bin/sh", "-c", "cat >/dev/null"],
    cwd: Deno.cwd(),
  });
  const commandFigures = await time(command, 200, 10);
  await command.close();
  const baseline = await rawSpawn(100);

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = await req.json();
    return Response.json({ jsonrpc: "2.0", id: body.id, result: null });
  });
  try {
    const { port } = server.addr as Deno.NetAddr;
    const remote = createRemoteExecutor({
      name: "bench-remote",
      url: `http://127.0.0.1:${port}/rpc`,
    });
    const remoteFigures = await time(remote, 2000, 50);
    await remote.close();
    return {
      hooks_command_call: commandFigures,
      hooks_command_raw_spawn_baseline: baseline,
      hooks_remote_call: remoteFigures,
    };
  } finally {
    await server.shutdown();
  }
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
