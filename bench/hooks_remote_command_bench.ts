/**
 * Per-call overhead of the command and remote hook executors: a trivial command hook
 * (`/bin/sh -c 'cat >/dev/null'`, spawned in its own process group each call) and a loopback
 * JSON-RPC hook against an in-process server that answers `null`.
 *
 * @module
 */
import { createCommandExecutor } from "../lifecycle/mod.ts";
import { createRemoteExecutor } from "../lifecycle/mod.ts";
import type { Executor } from "../lifecycle/mod.ts";
import { latency, scaled } from "./_stats.ts";

const PARAMS = { work_item: { ref: "github:acme/app#42" }, proceed: true, prompt: "x".repeat(512) };

function time(ex: Executor, calls: number, warmup: number) {
  return latency(() => ex.call("session_spawn", PARAMS, { timeoutMs: 10_000 }), {
    calls,
    warmup,
  });
}

/** The same command spawned bare with `Deno.Command` (no group, no env, no checks): a baseline. */
function rawSpawn(calls: number) {
  const input = new TextEncoder().encode(
    JSON.stringify({ point: "session_spawn", context: PARAMS }),
  );
  return latency(async () => {
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
  }, { calls, warmup: 0 });
}

/** Measures both executors; returns the figures for `deno task bench`. */
export async function run(): Promise<Record<string, unknown>> {
  const command = createCommandExecutor({
    name: "bench-command",
    argv: ["/bin/sh", "-c", "cat >/dev/null"],
    cwd: Deno.cwd(),
  });
  const commandFigures = await time(command, scaled(200, 5), scaled(10, 5));
  await command.close();
  const baseline = await rawSpawn(scaled(100, 5));

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
    const remoteFigures = await time(remote, scaled(2000), scaled(50, 5));
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
