/**
 * The status page in a real headless Chromium, following `the-loop demo` live: the page lists
 * the demo item with its phase; the agent's question appears without a reload; the page's reply
 * box answers it (the agent goes on to the review gate); the item's page shows the agent's tmux
 * pane through the web terminal; `the-loop demo comment 1 the-loop:approve` passes the gate and
 * `the-loop demo close 1` ends the session, the page following each step.
 *
 * `THE_LOOP_SCREENSHOT=docs/ui.png` writes the README's screenshot of the page at the gate.
 */
import assert from "node:assert/strict";
import type { DemoRun } from "../demo/mod.ts";
import { browserTest, screenshotIfAsked } from "./_browser.ts";
import { cli, hasTmux, readOutput, spawnCli, until } from "./_test_utils.ts";

const REF = "github:octo/demo#1";
const ROW = `tr[data-testid=item-row][data-ref="${REF}"]`;

browserTest(
  "the page follows the demo: phase, a live question answered, the pane, the gate, the close",
  async (browser) => {
    const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "ui-browser-" }));
    const runFile = `${home}/demo.json`;
    const env = { THE_LOOP_DEMO_FILE: runFile, TMUX_TMPDIR: home };
    const child = spawnCli(["demo", "--runner", hasTmux ? "tmux" : "process"], { cwd: home, env });
    const out = readOutput(child);
    const detail = () => `demo stdout:\n${out.out.stdout}\nstderr:\n${out.out.stderr}`;
    try {
      await until("the demo's guide", () => out.out.stdout.includes("Ctrl+C stops everything."), {
        ms: 60_000,
        detail,
      });
      const run = JSON.parse(await Deno.readTextFile(runFile)) as DemoRun;
      assert.ok(run.pageUrl);
      const page = await browser.openPage(run.pageUrl);
      // the item's row, with its phase
      await page.waitFor(ROW, { timeoutMs: 60_000 });
      assert.notEqual((await page.text(`${ROW} [data-testid=item-phase]`)).trim(), "");
      // the agent's question appears live, and the reply box answers it
      const question = `li[data-testid=question][data-ref="${REF}"]`;
      await page.waitForText(`${question} [data-testid=question-text]`, /flaky step/, {
        timeoutMs: 60_000,
      });
      await page.type(`${question} textarea[data-testid=reply-text]`, "fix its timing");
      await page.click(`${question} button[data-testid=reply-send]`);
      // the agent takes the answer, commits and claims its node: the review gate shows
      const gate = `li[data-testid=gate][data-ref="${REF}"]`;
      await page.waitFor(`${gate} [data-testid=gate-approve]`, { timeoutMs: 60_000 });
      assert.equal(await page.raw.$(question), null, "the question is answered");
      await screenshotIfAsked(page);
      if (hasTmux) {
        // the item's page: the web terminal shows the agent's pane
        const item = await browser.openPage(`${run.pageUrl}items/${encodeURIComponent(REF)}`);
        await item.waitFor("#terminal[data-terminal=live]", { timeoutMs: 30_000 });
        await item.waitForText("#terminal", /demo agent/, { timeoutMs: 30_000 });
      }
      // the gate, approved by the demo's person; then the close ends the session
      const ok = async (args: string[]) => {
        const r = await cli(args, { cwd: home, env });
        assert.equal(r.code, 0, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
      };
      await ok(["demo", "comment", "1", "the-loop:approve"]);
      await page.waitForText(`${ROW} [data-testid=item-node]`, /done/, { timeoutMs: 60_000 });
      await ok(["demo", "close", "1"]);
      await page.waitForText(`${ROW} [data-testid=item-session]`, /closed/, { timeoutMs: 60_000 });
      assert.deepEqual(page.consoleErrors, []);
    } finally {
      child.kill("SIGINT");
      await child.status;
      await out.done;
      await Deno.remove(home, { recursive: true }).catch(() => {});
    }
  },
  { timeoutMs: 90_000 },
);
