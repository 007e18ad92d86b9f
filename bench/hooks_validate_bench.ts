/**
 * Bench: `the-loop hooks validate` over ten hooks made from the `hooks init` module starter, each
 * DIFFERENT (its own class name, preamble constant and a method body of its own), so neither a
 * bundle cache nor any dedup of identical files can serve one hook for another; each run a fresh
 * process (cold): wall time and peak RSS with `--no-typecheck` (target < 1 s and < 200 MB), and
 * with the type check, so its own cost shows as the difference.
 *
 * @module
 */
import { baseEnv, taskArgs } from "../tests/_test_utils.ts";
import { benchRuns } from "./_cli.ts";
import { measure, type Measurement } from "./_measure.ts";

const HOOKS = 10;
const TARGET_MS = 1000;
const TARGET_RSS_KIB = 200 * 1024;

async function cli(args: string[], cwd: string): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...taskArgs(), ...args],
    cwd,
    env: baseEnv(cwd),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr).slice(0, 500));
}

/** The starter made hook `i`'s own: another class name, constant and prompt text. */
export function distinct(starter: string, i: number): string {
  const edits: [RegExp | string, string][] = [
    [/export default class (\w+)/, `export default class $1N${i}`],
    ['"Follow the team\'s conventions."', `PREAMBLE_${i}`],
    ["${ctx.prompt}`", `\${ctx.prompt}\\n(hook ${i})\``],
  ];
  let text = starter;
  for (const [from, to] of edits) {
    const next = text.replace(from, to);
    if (next === text) throw new Error(`the starter changed (no ${from}): update distinct()`);
    text = next;
  }
  return `const PREAMBLE_${i} = "Follow the team's conventions (${i}).";\n${text}`;
}

/** A temp dir whose `.the-loop/cli-config.yaml` declares ten starter hooks. */
async function tenStarters(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "the-loop-bench-validate-" });
  await cli(["hooks", "init", "starter"], dir);
  const hooks = `${dir}/.the-loop/hooks`;
  const starter = await Deno.readTextFile(`${hooks}/starter.ts`);
  const entries: string[] = [];
  for (let i = 1; i <= HOOKS; i++) {
    await Deno.writeTextFile(`${hooks}/starter_${i}.ts`, distinct(starter, i));
    entries.push(`  - name: starter-${i}\n    path: hooks/starter_${i}.ts\n`);
  }
  await Deno.writeTextFile(`${dir}/.the-loop/cli-config.yaml`, `hooks:\n${entries.join("")}`);
  return dir;
}

function judged(m: Measurement) {
  return {
    ...m,
    target_wall_ms: TARGET_MS,
    target_peak_rss_kib: TARGET_RSS_KIB,
    meets_target: m.wall_ms_median < TARGET_MS &&
      (m.peak_rss_kib_max === null || m.peak_rss_kib_max < TARGET_RSS_KIB),
  };
}

/** Runs the bench. */
export async function run(): Promise<Record<string, unknown>> {
  const dir = await tenStarters();
  const runs = Math.min(benchRuns(), 3);
  const argv = [Deno.execPath(), ...taskArgs(), "hooks", "validate"];
  const opts = { cwd: dir, env: baseEnv(dir), runs };
  try {
    const plain = await measure([...argv, "--no-typecheck"], opts);
    const typed = await measure(argv, opts);
    return {
      hooks: HOOKS,
      no_typecheck: judged(plain),
      with_typecheck: typed,
      typecheck_cost_ms: Math.round(typed.wall_ms_median - plain.wall_ms_median),
    };
  } catch (err) {
    return { error: (err as Error).message.slice(0, 500) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
