/**
 * `the-loop demo [--webhook] [--port N] [--runner tmux|process] [--keep]`: the whole loop,
 * offline, until Ctrl+C (`demo/`: the fake GitHub, the daemon, the demo agent); it prints where
 * everything is and what to try. `the-loop demo comment N TEXT` comments on the demo's item `N`
 * as the demo's person, `the-loop demo close N` (`reopen N`) closes (reopens) it, both on the
 * running demo found through its run file. The hidden `demo agent …` is the demo agent itself,
 * run by the daemon as `claude`. See `docs/demo.md`.
 *
 * @module
 */
import { type Command, Option } from "commander";
import { UsageError } from "../errors.ts";
import { type CliContext, println } from "./context.ts";

interface Flags {
  webhook?: boolean;
  port?: string;
  runner?: "tmux" | "process";
  keep?: boolean;
}

/** A work item's number, as given. */
function numberOf(n: string): number {
  if (!/^\d+$/.test(n.trim()) || Number(n) < 1) {
    throw new UsageError(`not an issue number: "${n}" (the demo's issues are 1, 2 and 3)`);
  }
  return Number(n);
}

/** The running demo's record (imported only now). */
async function running(ctx: CliContext) {
  const { demoRunPath, readDemoRun } = await import("../demo/mod.ts");
  return await readDemoRun(demoRunPath(ctx.env));
}

/** Registers `demo` and its subcommands. */
export function register(program: Command, ctx: CliContext): void {
  const demo = program.command("demo")
    .description("run the whole loop offline: a fake GitHub, the daemon and a demo agent")
    .option("--webhook", "take webhook deliveries (gh-webhook start) instead of polling")
    .option("--port <port>", "the status page's port (default: a free one)")
    .addOption(
      new Option("--runner <runner>", "where the agent runs (default: tmux when installed)")
        .choices(["tmux", "process"]),
    )
    .option("--keep", "keep the demo's folder when it stops")
    .action((flags: Flags) => run(flags, ctx));
  demo.helpOption("-h, --help", "show help").helpCommand(false);
  demo.command("comment")
    .description("comment on the running demo's issue N, as its person (@you)")
    .argument("<n>", "the issue's number (1 is the demo's)")
    .argument("<text>", "the comment, e.g. the-loop:approve")
    .action(async (n: string, text: string) => {
      const { demoComment } = await import("../demo/mod.ts");
      if (!text.trim()) throw new UsageError("demo comment: the text is empty");
      const url = await demoComment(await running(ctx), numberOf(n), text);
      println(ctx, `commented on #${n} as @you: ${url}`);
    });
  for (const [name, state] of [["close", "closed"], ["reopen", "open"]] as const) {
    demo.command(name)
      .description(`${name} the running demo's issue N, as its person (@you)`)
      .argument("<n>", "the issue's number (1 is the demo's)")
      .action(async (n: string) => {
        const { demoSetState } = await import("../demo/mod.ts");
        await demoSetState(await running(ctx), numberOf(n), state);
        println(ctx, `${name === "close" ? "closed" : "reopened"} #${n} as @you`);
      });
  }
  demo.command("agent", { hidden: true })
    .description("the demo agent (run by the daemon as `claude`)")
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument("[args...]")
    .action(async (_args: string[], _opts: unknown, cmd: Command) => {
      const { runDemoAgent } = await import("../demo/mod.ts");
      const code = await runDemoAgent(cmd.args, ctx.cwd);
      if (code !== 0) throw new Error(`the demo agent exited ${code}`);
    });
}

function portOf(flag: string | undefined): number {
  if (flag === undefined) return 0;
  const n = Number(flag);
  if (!/^\d+$/.test(flag.trim()) || n > 65535) {
    throw new UsageError(`--port: must be a port number 0-65535 (got "${flag}")`);
  }
  return n;
}

/** `the-loop demo`: starts it, prints the guide, waits for Ctrl+C (or the daemon's end). */
async function run(flags: Flags, ctx: CliContext): Promise<void> {
  const interrupted = ctx.interrupted(); // listening before anything starts
  const port = portOf(flags.port);
  const { demoGuide, startDemo } = await import("../demo/mod.ts");
  println(ctx, "the-loop demo: starting (a fake GitHub, a git repository, the daemon)…");
  const last: string[] = []; // the daemon's last words, told when it ends by itself
  const demo = await startDemo({
    webhook: flags.webhook,
    port,
    runner: flags.runner,
    keep: flags.keep,
    env: ctx.env,
    onDaemonLine: (line) => {
      last.push(line);
      if (last.length > 20) last.shift();
    },
  });
  let ended: number | undefined;
  let stopping = false;
  try {
    for (const line of demoGuide(demo.run)) println(ctx, line);
    await Promise.any([
      interrupted,
      demo.exited.then((code) => void (ended = stopping ? undefined : code)),
    ]);
  } finally {
    stopping = true;
    println(ctx, "the-loop demo: stopping…");
    await demo.stop();
    println(ctx, `the-loop demo: stopped${flags.keep ? `; its files are in ${demo.run.dir}` : ""}`);
  }
  if (ended !== undefined) {
    for (const line of last) ctx.warn(`  ${line}\n`);
    throw new Error(`the demo's daemon exited ${ended} by itself (its last lines above)`);
  }
}
