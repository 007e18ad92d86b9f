import assert from "node:assert/strict";
import type { Command } from "commander";
import { silentContext } from "./context.ts";
import { buildProgram } from "./mod.ts";

function* commands(cmd: Command, path: string[] = []): Generator<[string, Command]> {
  yield [["the-loop", ...path].join(" "), cmd];
  for (const sub of cmd.commands) yield* commands(sub, [...path, sub.name()]);
}

Deno.test("--help lists every flag a command accepts: its own, its default's, the globals", () => {
  const program = buildProgram(silentContext());
  for (const [name, cmd] of commands(program)) {
    const help = cmd.helpInformation();
    const isDefault = (cmd as unknown as { _defaultCommandName?: string })._defaultCommandName;
    const fallback = cmd.commands.find((c) => c.name() === isDefault);
    for (const o of [...cmd.options, ...(fallback?.options ?? []), ...program.options]) {
      if (o.hidden) continue;
      assert.ok(help.includes(o.long ?? o.short ?? ""), `${name} --help lacks ${o.flags}`);
    }
  }
  assert.match(program.commands.find((c) => c.name() === "hooks")!.helpInformation(), /--format/);
});
