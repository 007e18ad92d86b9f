/**
 * `the-loop sessions`: the session registry — `register`, `list`, `attach`, `close` — and the
 * execution-control verbs `start`, `pause`, `resume`, `stop` (the comment keywords, from the
 * terminal). See `docs/sessions.md`.
 *
 * @module
 */
import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import * as registerCmd from "./register.ts";
import * as list from "./list.ts";
import * as attach from "./attach.ts";
import * as close from "./close.ts";
import * as verbs from "./verbs.ts";

/** Registers `sessions` and its subcommands. */
export function register(program: Command, ctx: CliContext): void {
  const group = program.command("sessions")
    .description("the session registry and execution control (start, pause, resume, stop)");
  group.helpOption("-h, --help", "show help").helpCommand(false);
  for (const sub of [registerCmd, list, attach, close, verbs]) sub.register(group, ctx);
}
