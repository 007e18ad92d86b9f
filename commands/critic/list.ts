/**
 * `the-loop critic list [--root DIR] [--format table|json]`: the critics the repository declares,
 * each with its kind (`harness` or `command`), harness, model, whether it is enabled, its
 * timeout and the argv it would run with the placeholders shown (`{prompt}`). A misconfigured
 * `harness-config.yaml` exits 2 with every problem at `file:line:col`; no file, or no
 * `reviews.critics`, lists none (`(no critics declared in …)` on stderr).
 *
 * `--format json` prints the envelope (`commands/_envelope.ts`, `schema/cli/critic-list.json`)
 * with `root`, `file` (null when there is none) and `critics`, each
 * `{name, kind, harness, model, enabled, timeoutSeconds, argv}` (`harness` null for a command
 * critic; `argv` null for a harness this build has no adapter for).
 *
 * @module
 */
import type { Command } from "commander";
import { type Critic, loadCritics, shownArgv } from "../../repo/critic/mod.ts";
import { repoRoot } from "../../repo/harness_config.ts";
import { visible } from "../../terminal.ts";
import type { CliContext } from "../context.ts";
import { jsonOnFailure, printEnvelope } from "../_envelope.ts";
import { formatOption, table } from "../_output.ts";

interface ListFlags {
  root?: string;
  format: "table" | "json";
}

/** A critic as `critic list --format json` shows it. */
export function criticJson(c: Critic) {
  return {
    name: c.name,
    kind: c.kind,
    harness: c.kind === "harness" ? c.harness : null,
    model: c.model,
    enabled: c.enabled,
    timeoutSeconds: c.timeoutSeconds,
    argv: shownArgv(c),
  };
}

/** Adds `list` to the `critic` group. */
export function register(group: Command, ctx: CliContext): void {
  const cmd = group.command("list")
    .description("list the critics the repository declares and the argv each would run")
    .option("--root <dir>", "the repository (default: the git top of the working directory)");
  formatOption(cmd, ["table", "json"], "table");
  cmd.action((flags: ListFlags) =>
    jsonOnFailure(
      ctx,
      { json: flags.format === "json", command: "critic list", fields: { critics: [] } },
      async (ctx) => {
        const root = await repoRoot({ root: flags.root, cwd: ctx.cwd });
        const loaded = await loadCritics(root);
        const critics = loaded.critics.map(criticJson);
        if (flags.format === "json") {
          printEnvelope(ctx, "critic list", { ok: true, config: null }, {
            root,
            file: loaded.found ? loaded.path : null,
            critics,
          });
          return;
        }
        if (critics.length === 0) {
          ctx.warn(`(no critics declared in ${loaded.path})\n`);
          return;
        }
        ctx.write(visible(table(
          ["Name", "Kind", "Harness", "Model", "Enabled", "Timeout", "Argv"],
          critics.map((c) => [
            c.name,
            c.kind,
            c.harness ?? "-",
            c.model ?? "-",
            c.enabled ? "yes" : "no",
            `${c.timeoutSeconds}s`,
            c.argv ? c.argv.map(shown).join(" ") : "(no adapter for this harness yet)",
          ]),
        )));
      },
    )
  );
}

/** An argv element as a person reads it: quoted when it holds a space or a quote. */
function shown(arg: string): string {
  return /^[\w@%+=:,./{}-]+$/.test(arg) ? arg : JSON.stringify(arg);
}
