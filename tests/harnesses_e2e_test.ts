/**
 * The five harnesses end to end, through the real `poll start` against the fake GitHub, each
 * with its fake executable on PATH (which refuses any flag its CLI does not document and answers
 * in its CLI's documented format): headless (the process runner) and in tmux, a work item is
 * started, two later comments go into the same conversation, the session id is registered (as the
 * harness gives it: pre-assigned, issued or read from its output), and headless, what each run
 * reported it used is counted. One harness is picked by the item's `harness:<name>` label, the
 * others by `defaultHarness`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { HarnessLogEntry } from "./fake_harness/mod.ts";
import { LoopsE2E, START, waitFor } from "./_loops_e2e_utils.ts";

const HARNESSES = ["claude", "cursor", "codex", "gemini", "opencode"] as const;
type Harness = typeof HARNESSES[number];
const PROGRAM: Record<Harness, string> = {
  claude: "claude",
  cursor: "cursor-agent",
  codex: "codex",
  gemini: "gemini",
  opencode: "opencode",
};

/** The approval flags `auto-edit` (the default) gives each harness, in each form. */
const AUTO_EDIT: Record<Harness, { headless: string[]; interactive: string[] }> = {
  claude: {
    headless: ["--permission-mode", "acceptEdits"],
    interactive: ["--permission-mode", "acceptEdits"],
  },
  cursor: { headless: [], interactive: [] },
  codex: {
    headless: ["--sandbox", "workspace-write"],
    interactive: ["--sandbox", "workspace-write", "--ask-for-approval", "never"],
  },
  gemini: {
    headless: ["--approval-mode", "auto_edit"],
    interactive: ["--approval-mode", "auto_edit"],
  },
  opencode: { headless: [], interactive: [] },
};

/** Whether `argv` holds `flags` in a row. */
function hasRun(argv: string[], flags: string[]): boolean {
  if (flags.length === 0) return true;
  return argv.some((_, i) => flags.every((f, j) => argv[i + j] === f));
}

const TOKENS = 100;

for (const runner of ["process", "tmux"] as const) {
  for (const h of HARNESSES) {
    // cursor is picked by its label; the others by `defaultHarness`
    const byLabel = h === "cursor";
    Deno.test(`${h} (${runner}${byLabel ? ", by its harness: label" : ""}): spawned, two comments in the same conversation, its id registered${runner === "process" ? ", its usage counted" : ""}`, async () => {
      const fx = await LoopsE2E.open({
        runner,
        routing: byLabel ? "" : `      defaultHarness: ${h}\n`,
        harness: { FAKE_HARNESS_TOKENS: String(TOKENS) },
      });
      try {
        const d = await fx.poll();
        const n = fx.openIssue(byLabel ? [`harness:${h}`] : []);
        await d.step();
        fx.gh.world.addComment("octo/repo", n, START, "alice");
        await d.step();
        const mine = async () =>
          (await fx.harness()).filter((e) => e.program === PROGRAM[h] || e.event !== "boot");
        const boots = async () =>
          (await fx.harness()).filter((e) => e.event === "boot" && e.program === PROGRAM[h]);
        await waitFor(`${h} booted`, async () => (await boots()).length >= 1, () => fx.harness());
        for (const word of ["first", "second"]) {
          fx.gh.world.addComment("octo/repo", n, `the ${word}-${h} comment`, "alice");
          await d.step();
          await waitFor(
            `the ${word} comment in ${h}`,
            async () => JSON.stringify(await mine()).includes(`${word}-${h}`),
            () => fx.harness(),
          );
        }
        const log = await fx.harness();
        const rejected = log.filter((e) => e.event === "rejected");
        assert.deepEqual(rejected, [], "every flag the-loop gave is one its CLI documents");
        const record = (await fx.record(n))!;
        assert.equal(record.harness, h);
        const id = record.harnessSessionId as string;
        assert.ok(id, "the conversation's id is registered");
        const all = await boots();
        if (runner === "process") {
          const runs = all.filter((e) => e.mode === "headless");
          assert.equal(runs.length, 3, "the spawn and one run per comment");
          // every later run continues the one conversation the spawn started
          assert.ok(runs.slice(1).every((e) => e.session === id), JSON.stringify(runs));
          assert.ok(hasRun(runs[0].argv!, AUTO_EDIT[h].headless), "approval flags");
          // a later run: the same flags (codex's `exec resume` takes them as `-c` overrides)
          const later = h === "codex"
            ? ["-c", 'sandbox_mode="workspace-write"']
            : AUTO_EDIT[h].headless;
          assert.ok(runs.slice(1).every((e) => hasRun(e.argv!, later)), "approval flags, later");
          assert.ok(runs[2].argv!.some((a) => a.includes(`second-${h}`)));
          // what `sessions list` shows: the record with its deliveries log folded in
          type Usage = { delivered: number; budgets: { tokens: { used: number | null } } };
          let usage: Usage | undefined;
          await waitFor("three runs counted", async () => {
            usage = (await fx.listed(n)).usage as Usage;
            return usage.delivered === 3;
          }, () => fx.listed(n));
          // cursor-agent reports nothing: not measured
          assert.equal(usage!.budgets.tokens.used, h === "cursor" ? null : 3 * TOKENS);
        } else {
          const tuis = all.filter((e) => e.mode === "interactive");
          assert.equal(tuis.length, 1, "one interactive harness throughout");
          assert.ok(hasRun(tuis[0].argv!, AUTO_EDIT[h].interactive), "approval flags");
          // the id the registry holds is the one the harness runs (given, issued, or found)
          assert.equal(tuis[0].session, id);
          const lines = log.filter((e: HarnessLogEntry) =>
            e.event === "input" && e.pid === tuis[0].pid
          )
            .map((e) => e.line ?? "").join("\n");
          assert.match(lines, new RegExp(`first-${h}[\\s\\S]*second-${h}`));
          if (h === "cursor") {
            assert.equal(all.filter((e) => e.mode === "issue").length, 1, "create-chat, once");
          }
          if (h === "codex") {
            const sessions = join(fx.home, ".codex", "sessions");
            assert.ok(Deno.statSync(sessions).isDirectory, "codex left its rollout there");
          }
        }
        const spawned = (await fx.events()).find((e) =>
          e.event === "session.spawned" ||
          e.event === "session.registered"
        );
        assert.equal(spawned?.harness, h);
      } finally {
        await fx.close();
      }
    });
  }
}
