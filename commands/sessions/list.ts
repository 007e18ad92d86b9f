/**
 * `the-loop sessions list [--status S] [--format table|json]`: every registered session, closed
 * ones too, sorted by work item. The table's columns are `Work item, Harness, Session
 * id, Tmux, Status, Control, Last event, Usage`, Control reading `<command> (<source>)` or `-`,
 * Status adding `awaiting input since <when>` while the agent's question is open, Usage what the
 * session used against its budgets (`deliveries/h 12/60, cost $0.42/$5.00, …`, a budget the
 * harness reports nothing on "not measured"); with no session it
 * prints `(no registered sessions)` on stderr. JSON is the envelope with `sessions`, each the
 * record's fields plus `ref`, `control` (the last control record, or null), `awaitingInput`
 * (the open question `{question, summary, since, commentUrl}`, or null) and `usage` (each
 * budget's `{used, limit}` — used null: not measured; limit null: off). Files the registry did
 * not write, or cannot read, are skipped with a warning on stderr.
 *
 * @module
 */
import { type Command, Option } from "commander";
import type { SessionRecord } from "../../state/registry.ts";
import { budgetCell, budgetView } from "../../state/usage.ts";
import { visible } from "../../terminal.ts";
import type { CliContext } from "../context.ts";
import { configRef, jsonOnFailure, printEnvelope } from "../_envelope.ts";
import { formatOption, table } from "../_output.ts";
import { openSessions } from "./_open.ts";

interface ListFlags {
  status?: SessionRecord["status"];
  format: "table" | "json";
}

/** The table's header. */
const COLUMNS = [
  "Work item",
  "Harness",
  "Session id",
  "Tmux",
  "Status",
  "Control",
  "Last event",
  "Usage",
];

/** Adds `list` to the `sessions` group. */
export function register(group: Command, ctx: CliContext): void {
  const cmd = group.command("list")
    .description(
      "list registered sessions (closed ones too), their last control command and open question",
    )
    .addOption(
      new Option("--status <status>", "only sessions with this status")
        .choices(["active", "paused", "closed"]),
    );
  formatOption(cmd, ["table", "json"], "table");
  cmd.action((flags: ListFlags) =>
    jsonOnFailure(
      ctx,
      { json: flags.format === "json", command: "sessions list", fields: { sessions: [] } },
      async (ctx) => {
        const { loaded, store, control } = await openSessions(ctx, "sessions");
        const routing = loaded.config.webhooks.ghWebhook.routing;
        const now = new Date();
        const records = (await store.list())
          .filter((r) => flags.status === undefined || r.status === flags.status);
        // the registry's fields by name (a hand-edited file's extra keys stay out of the contract)
        const rows = await Promise.all(records.map(async (r) => ({
          ref: r.workItem.ref,
          workItem: r.workItem,
          harness: r.harness,
          harnessSessionId: r.harnessSessionId,
          cwd: r.cwd,
          status: r.status,
          createdAt: r.createdAt,
          lastEventAt: r.lastEventAt,
          tmuxTarget: r.tmuxTarget,
          recentDeliveries: r.recentDeliveries,
          url: r.url,
          control: (await control.get(r.workItem.ref)) ?? null,
          awaitingInput: r.awaitingInput
            ? {
              question: r.awaitingInput.question,
              summary: r.awaitingInput.summary,
              since: r.awaitingInput.since,
              commentUrl: r.awaitingInput.commentUrl,
            }
            : null,
          usage: budgetView(r.usage, {
            budgets: routing.budgets,
            loopGuard: routing.loopGuard,
            now,
          }),
        })));
        if (flags.format === "json") {
          printEnvelope(ctx, "sessions list", { ok: true, config: configRef(loaded) }, {
            sessions: rows,
          });
          return;
        }
        if (rows.length === 0) {
          ctx.warn("(no registered sessions)\n");
          return;
        }
        const cell = (s: string) => visible(s, { multiline: false }) || "-";
        ctx.write(table(
          COLUMNS,
          rows.map((r) =>
            [
              r.ref,
              r.harness,
              r.harnessSessionId,
              r.tmuxTarget,
              r.awaitingInput
                ? `${r.status}, awaiting input since ${r.awaitingInput.since}`
                : r.status,
              r.control ? `${r.control.command} (${r.control.source})` : "",
              r.lastEventAt ?? "",
              budgetCell(r.usage),
            ].map(cell)
          ),
        ));
      },
    )
  );
}
