/**
 * `--format` for every command that prints data: text/table for people, json for machines,
 * jsonl where output streams. One helper so every command spells and checks it alike.
 *
 * @module
 */
import { type Command, Option } from "commander";

/** The output formats a command may offer. */
export type Format = "text" | "table" | "markdown" | "json" | "jsonl" | "yaml";

/** Adds `--format <fmt>` restricted to `choices`, defaulting to `fallback`. */
export function formatOption(cmd: Command, choices: Format[], fallback: Format): Command {
  return cmd.addOption(
    new Option("--format <format>", "output format").choices(choices).default(fallback),
  );
}

/** Pretty JSON with a trailing newline, as every `--format json` prints it. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, null, 2) + "\n";
}

export { table } from "../terminal.ts";
