/**
 * `routing.approvalMode` (and the model, effort and trust) mapped per harness: the table the docs
 * print (`docs/harnesses.md`), checked adapter by adapter, headless and interactive, and never
 * widened past what the operator's own `harnessArgs` set.
 */
import assert from "node:assert/strict";
import type { ApprovalMode, HarnessMode, HarnessName, HarnessSettings } from "../seams.ts";
import { HARNESS_NAMES } from "../seams.ts";
import { adapterFor, harnessSettings, launchArgs } from "./mod.ts";

const settings = (approvalMode: ApprovalMode, more: Partial<HarnessSettings> = {}) => ({
  approvalMode,
  trust: false,
  ...more,
});

/** Each harness's own flags per approval mode: [headless, interactive]. */
const TABLE: Record<HarnessName, Record<ApprovalMode, [string[], string[]]>> = {
  claude: {
    ask: [["--permission-mode", "default"], ["--permission-mode", "default"]],
    "auto-edit": [["--permission-mode", "acceptEdits"], ["--permission-mode", "acceptEdits"]],
    "auto-all": [
      ["--permission-mode", "bypassPermissions"],
      ["--permission-mode", "bypassPermissions"],
    ],
  },
  cursor: { ask: [[], []], "auto-edit": [[], []], "auto-all": [["--force"], ["--force"]] },
  codex: {
    ask: [["--sandbox", "read-only"], [
      "--sandbox",
      "read-only",
      "--ask-for-approval",
      "on-request",
    ]],
    "auto-edit": [
      ["--sandbox", "workspace-write"],
      ["--sandbox", "workspace-write", "--ask-for-approval", "never"],
    ],
    "auto-all": [
      ["--dangerously-bypass-approvals-and-sandbox"],
      ["--dangerously-bypass-approvals-and-sandbox"],
    ],
  },
  gemini: {
    ask: [["--approval-mode", "default"], ["--approval-mode", "default"]],
    "auto-edit": [["--approval-mode", "auto_edit"], ["--approval-mode", "auto_edit"]],
    "auto-all": [["--approval-mode", "yolo"], ["--approval-mode", "yolo"]],
  },
  opencode: { ask: [[], []], "auto-edit": [[], []], "auto-all": [["--auto"], ["--auto"]] },
};

Deno.test("approvalMode per harness: the documented flags, headless and interactive", () => {
  for (const h of HARNESS_NAMES) {
    for (const mode of ["ask", "auto-edit", "auto-all"] as const) {
      const [headless, interactive] = TABLE[h][mode];
      const args = (m: HarnessMode) =>
        adapterFor(h).settingsArgs({ extraArgs: [], settings: settings(mode), mode: m });
      assert.deepEqual(args("headless"), headless, `${h} ${mode} headless`);
      assert.deepEqual(args("interactive"), interactive, `${h} ${mode} interactive`);
    }
  }
});

Deno.test("approvalMode is never widened: a flag the operator set wins, the adapter adds none", () => {
  const own = (h: HarnessName, extraArgs: string[], mode: ApprovalMode = "auto-all") =>
    adapterFor(h).settingsArgs({ extraArgs, settings: settings(mode), mode: "interactive" });
  assert.deepEqual(own("claude", ["--permission-mode", "plan"]), []);
  assert.deepEqual(own("claude", ["--permission-mode=plan"]), []);
  assert.deepEqual(own("claude", ["--dangerously-skip-permissions"], "ask"), []);
  assert.deepEqual(own("codex", ["-s", "read-only"]), []);
  assert.deepEqual(own("codex", ["-a", "untrusted"], "auto-edit"), [
    "--sandbox",
    "workspace-write",
  ]);
  assert.deepEqual(own("gemini", ["--yolo"], "ask"), []);
  assert.deepEqual(own("cursor", ["-f"]), []);
  // and `ask` adds nothing that widens: no bypass, no force, no auto
  for (const h of HARNESS_NAMES) {
    const flags = [
      ...own(h, [], "ask"),
      ...adapterFor(h).settingsArgs({
        extraArgs: [],
        settings: settings("ask"),
        mode: "headless",
      }),
    ].join(" ");
    assert.doesNotMatch(flags, /bypass|yolo|--force|--auto|acceptEdits|workspace-write|never/);
  }
});

Deno.test("without settings (a bare rig) an adapter adds no flags of its own", () => {
  for (const h of HARNESS_NAMES) {
    assert.deepEqual(adapterFor(h).settingsArgs({ extraArgs: [], mode: "headless" }), []);
  }
});

Deno.test("model and effort as each harness takes them; trust where it has a flag", () => {
  const o = (h: HarnessName, mode: HarnessMode) =>
    adapterFor(h).settingsArgs({
      extraArgs: [],
      settings: settings("ask", { model: "m1", effort: "high", trust: true }),
      mode,
    }).slice(h === "codex" && mode === "interactive" ? 4 : 2);
  assert.deepEqual(o("claude", "headless"), ["--model", "m1", "--effort", "high"]);
  assert.deepEqual(
    adapterFor("cursor").settingsArgs({
      extraArgs: [],
      settings: settings("ask", { model: "m1", effort: "high", trust: true }),
      mode: "headless",
    }),
    ["--model", "m1", "--trust"],
  );
  assert.deepEqual(
    adapterFor("cursor").settingsArgs({
      extraArgs: [],
      settings: settings("ask", { trust: true }),
      mode: "interactive",
    }),
    [],
    "--trust exists in print mode only",
  );
  assert.deepEqual(o("codex", "headless"), [
    "--model",
    "m1",
    "-c",
    'model_reasoning_effort="high"',
  ]);
  assert.deepEqual(o("gemini", "interactive"), ["--model", "m1", "--skip-trust"]);
  assert.deepEqual(
    adapterFor("opencode").settingsArgs({
      extraArgs: [],
      settings: settings("ask", { model: "p/m1", effort: "high" }),
      mode: "headless",
    }),
    ["--model", "p/m1", "--variant", "high"],
  );
});

Deno.test("codex exec resume takes its settings as -c overrides only", () => {
  const argv = adapterFor("codex").headless({
    extraArgs: [],
    settings: settings("auto-edit", { model: "gpt-x", effort: "low" }),
    sessionId: "0b8e9a2e-1111-4222-8333-444455556666",
    prompt: "-go",
  });
  assert.deepEqual(argv, [
    "exec",
    "resume",
    "--json",
    "-c",
    'sandbox_mode="workspace-write"',
    "-c",
    'model="gpt-x"',
    "-c",
    'model_reasoning_effort="low"',
    "--",
    "0b8e9a2e-1111-4222-8333-444455556666",
    "-go",
  ]);
});

Deno.test("harnessSettings and launchArgs read the routing config (the default: auto-edit)", () => {
  const routing = {
    approvalMode: "auto-edit" as const,
    harnessModels: { claude: { model: "opus" } } as never,
    harnessTrust: { enabled: false } as never,
    harnessArgs: { claude: ["--verbose"], cursor: [], codex: [], gemini: [], opencode: [] },
  };
  assert.deepEqual(harnessSettings(routing, "claude"), {
    approvalMode: "auto-edit",
    model: "opus",
    trust: false,
  });
  assert.deepEqual(launchArgs(routing, "claude", "interactive"), [
    "--permission-mode",
    "acceptEdits",
    "--model",
    "opus",
    "--verbose",
  ]);
});
