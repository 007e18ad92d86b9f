/**
 * `the-loop hooks points [--format text|json]`: the lifecycle points' catalog — when each fires,
 * every field of its context with its type, which fields are decisions and their defaults. JSON
 * adds each point's JSON Schema (`pointSchema`) and the envelope schema (`contextJsonSchema`).
 *
 * @module
 */
import type { Command } from "commander";
import { contextJsonSchema, POINT_NAMES, POINTS, pointSchema } from "../../lifecycle/sdk/mod.ts";
import { WORK_ITEM_FIELDS } from "../../lifecycle/sdk/mod.ts";
import type { CliContext } from "../context.ts";
import { formatOption, table, toJson } from "../_output.ts";

/** The catalog as `--format json` prints it. */
export function pointsJson(): Record<string, unknown> {
  return {
    points: POINT_NAMES.map((name) => {
      const spec = POINTS[name];
      return {
        name,
        fires: spec.fires,
        decisions: spec.fields.filter((f) => f.decision).map((f) => f.name),
        fields: spec.fields.map((f) => ({
          name: f.name,
          type: f.type,
          decision: f.decision,
          ...(f.decision ? { default: f.default } : {}),
          doc: f.doc,
        })),
        schema: pointSchema(name),
      };
    }),
    workItem: WORK_ITEM_FIELDS.map((f) => ({ name: f.name, type: f.type, doc: f.doc })),
    schema: contextJsonSchema(),
  };
}

/** The catalog for people: a heading per point and a table of its fields. */
export function pointsText(): string {
  const blocks = POINT_NAMES.map((name) => {
    const spec = POINTS[name];
    const rows = spec.fields.map((f) => [
      f.name,
      f.type,
      f.decision ? "decision" : "fact",
      f.decision ? JSON.stringify(f.default) : "—",
      f.doc,
    ]);
    return `${name}: ${spec.fires}\n\n` +
      table(["FIELD", "TYPE", "KIND", "DEFAULT", "MEANING"], rows);
  });
  const wi = table(
    ["FIELD", "TYPE", "MEANING"],
    WORK_ITEM_FIELDS.map((f) => [f.name, f.type, f.doc]),
  );
  return blocks.join("\n") + "\nWorkItem (a context file may give a bare ref string instead)\n\n" +
    wi + "\nA hook may change only the decisions; the facts are what the-loop knows.\n";
}

/** Registers `hooks points`. */
export function register(hooks: Command, ctx: CliContext): void {
  const cmd = hooks.command("points")
    .description(
      "list the lifecycle points: every context field, its type, decisions and defaults",
    );
  formatOption(cmd, ["text", "json"], "text");
  cmd.action((opts: { format: "text" | "json" }) => {
    ctx.write(opts.format === "json" ? toJson(pointsJson()) : pointsText());
  });
}
