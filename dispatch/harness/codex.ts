/**
 * OpenAI's Codex CLI (`codex`). It cannot be handed a new conversation's id: headless, the id is
 * the `thread_id` of the `thread.started` line its `--json` output (JSON lines) opens with; in
 * tmux, the TUI writes each conversation to `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`
 * (default `~/.codex`), whose first line (`session_meta`) names its id and working directory, so
 * the runner finds it there ({@linkcode discoverCodexId}).
 *
 * - headless, new: `codex exec --json <own…> <extra…> <prompt>`;
 * - headless, later turns: `codex exec resume --json <own…> <extra…> <id> <prompt>` (`exec resume`
 *   takes only `-c`/`--enable`/`--disable`/`--last`/`--all`/`--json`, so its settings go as `-c`
 *   config overrides);
 * - interactive: `codex <own…> <extra…> <prompt>`; resume `codex resume <own…> <extra…> <id> [prompt]`.
 *
 * Approval is two axes in codex, sandbox × approval policy: `ask` is a read-only sandbox (the
 * TUI asks on request: `-a on-request`; `exec` never asks, so a write is refused), `auto-edit` a
 * `workspace-write` sandbox (the TUI with `-a never`), `auto-all`
 * `--dangerously-bypass-approvals-and-sandbox`. Model `-m`, effort
 * `-c model_reasoning_effort="…"`. Usage: each `turn.completed` line carries
 * `usage {input_tokens, cached_input_tokens, output_tokens}`; tokens are input + output (the
 * cached ones are part of the input), turns the count of completed turns; codex reports no cost.
 *
 * @module
 */
import { join } from "node:path";
import type { HarnessAdapter, HarnessCall, HarnessMode, HarnessUsage } from "../seams.ts";
import { countOf, field, jsonLinesOf, type OwnFlag, ownFlags, promptTail } from "./_shared.ts";

const SANDBOX = ["--sandbox", "-s", "--dangerously-bypass-approvals-and-sandbox", "--yolo"];
const APPROVAL = [
  "--ask-for-approval",
  "-a",
  "--dangerously-bypass-approvals-and-sandbox",
  "--yolo",
];
// an operator's own sandbox or approval flag is their choice: no bypass over it
const BYPASS: OwnFlag = {
  names: [
    "--dangerously-bypass-approvals-and-sandbox",
    "--yolo",
    "--sandbox",
    "-s",
    "--ask-for-approval",
    "-a",
  ],
};

/** The approval flags of `exec` (new) and the TUI, per mode. */
const APPROVAL_FLAGS: Record<string, Record<HarnessMode, OwnFlag[]>> = {
  ask: {
    headless: [{ names: SANDBOX, value: "read-only" }],
    interactive: [{ names: SANDBOX, value: "read-only" }, { names: APPROVAL, value: "on-request" }],
  },
  "auto-edit": {
    headless: [{ names: SANDBOX, value: "workspace-write" }],
    interactive: [{ names: SANDBOX, value: "workspace-write" }, {
      names: APPROVAL,
      value: "never",
    }],
  },
  "auto-all": { headless: [BYPASS], interactive: [BYPASS] },
};

/** `exec resume` takes settings only as `-c key=value` (TOML values). */
const RESUME_SANDBOX: Record<string, string[]> = {
  ask: ['sandbox_mode="read-only"'],
  "auto-edit": ['sandbox_mode="workspace-write"'],
  "auto-all": ['sandbox_mode="danger-full-access"', 'approval_policy="never"'],
};

/** A TOML string (the value of a `-c` override). */
const toml = (s: string) => JSON.stringify(s);

/** Codex's own flags for a call (new `exec`, TUI and TUI resume alike). */
export function codexFlags(o: HarnessCall & { mode: HarnessMode }): string[] {
  const s = o.settings;
  if (!s) return [];
  const flags = ownFlags([
    ...APPROVAL_FLAGS[s.approvalMode][o.mode],
    s.model ? { names: ["--model", "-m"], value: s.model } : undefined,
  ], o.extraArgs);
  if (s.effort && !hasOverride(o.extraArgs, "model_reasoning_effort")) {
    flags.push("-c", `model_reasoning_effort=${toml(s.effort)}`);
  }
  return flags;
}

/** Whether the operator's `-c`/`--config` overrides already set `key`. */
function hasOverride(extraArgs: string[], key: string): boolean {
  return extraArgs.some((a, i) =>
    (a.startsWith(`${key}=`) && (extraArgs[i - 1] === "-c" || extraArgs[i - 1] === "--config")) ||
    a.startsWith(`--config=${key}=`) || a.startsWith(`-c${key}=`)
  );
}

/** `exec resume`'s settings: each a `-c` override the operator did not set. */
export function codexResumeFlags(o: HarnessCall): string[] {
  const s = o.settings;
  if (!s) return [];
  const overrides = [
    ...RESUME_SANDBOX[s.approvalMode],
    ...(s.model ? [`model=${toml(s.model)}`] : []),
    ...(s.effort ? [`model_reasoning_effort=${toml(s.effort)}`] : []),
  ];
  return overrides
    .filter((kv) => !hasOverride(o.extraArgs, kv.slice(0, kv.indexOf("="))))
    .flatMap((kv) => ["-c", kv]);
}

/** A codex thread id: a UUID (what `resume` takes). */
const THREAD = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isThreadId = (id: string) => THREAD.test(id);

/** The `thread_id` of the first `thread.started` line. */
export function codexThreadOf(stdout: string): string | undefined {
  for (const line of jsonLinesOf(stdout)) {
    if (line.type !== "thread.started") continue;
    const id = line.thread_id;
    return typeof id === "string" && isThreadId(id) ? id : undefined;
  }
  return undefined;
}

/** What the run used: tokens and turns from its `turn.completed` lines (no cost reported). */
export function codexUsageOf(stdout: string): HarnessUsage | undefined {
  let tokens: number | undefined;
  let turns = 0;
  for (const line of jsonLinesOf(stdout)) {
    if (line.type !== "turn.completed") continue;
    turns++;
    const input = countOf(field(line.usage, "input_tokens"));
    const output = countOf(field(line.usage, "output_tokens"));
    if (input !== undefined || output !== undefined) {
      tokens = (tokens ?? 0) + (input ?? 0) + (output ?? 0);
    }
  }
  if (turns === 0) return undefined;
  return { turns, ...(tokens !== undefined ? { tokens } : {}) };
}

/** The last agent message's text (`item.completed` of an `agent_message`). */
export function codexAnswerOf(stdout: string): string | undefined {
  let answer: string | undefined;
  for (const line of jsonLinesOf(stdout)) {
    if (line.type !== "item.completed" || field(line.item, "type") !== "agent_message") continue;
    const text = field(line.item, "text");
    if (typeof text === "string") answer = text;
  }
  return answer;
}

/** `$CODEX_HOME/sessions`, else `$HOME/.codex/sessions`; `undefined` when neither is known. */
function sessionsDir(env: Record<string, string>): string | undefined {
  if (env.CODEX_HOME) return join(env.CODEX_HOME, "sessions");
  return env.HOME ? join(env.HOME, ".codex", "sessions") : undefined;
}

/** The UTC day folders a conversation started at or after `since` may be in (today's, yesterday's). */
function dayDirs(root: string, since: number, now: number): string[] {
  const days = new Set<string>();
  for (const t of [since, now]) {
    const d = new Date(t);
    days.add(join(root, String(d.getUTCFullYear()), pad(d.getUTCMonth() + 1), pad(d.getUTCDate())));
    // codex names its day folders by local time: the day before and after cover any offset
    for (const shift of [-864e5, 864e5]) {
      const e = new Date(t + shift);
      days.add(
        join(root, String(e.getUTCFullYear()), pad(e.getUTCMonth() + 1), pad(e.getUTCDate())),
      );
    }
  }
  return [...days];
}
const pad = (n: number) => String(n).padStart(2, "0");

/**
 * The id of the conversation a codex TUI started in `cwd` at or after `since`: the newest
 * `rollout-*.jsonl` modified since then whose first line (`session_meta`) names `cwd`.
 */
export function discoverCodexId(
  o: { cwd: string; since: number; env: Record<string, string> },
): Promise<string | undefined> {
  const root = sessionsDir(o.env);
  if (!root) return Promise.resolve(undefined);
  let best: { id: string; mtime: number } | undefined;
  for (const dir of dayDirs(root, o.since, Date.now())) {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(dir)];
    } catch {
      continue;
    }
    for (const e of entries) {
      if (!e.isFile || !e.name.startsWith("rollout-") || !e.name.endsWith(".jsonl")) continue;
      const file = join(dir, e.name);
      let mtime: number;
      let first: string;
      try {
        mtime = Deno.statSync(file).mtime?.getTime() ?? 0;
        if (mtime < o.since - 1000) continue; // a file's time is coarser than the clock
        first = firstLine(file);
      } catch {
        continue;
      }
      let meta: unknown;
      try {
        meta = JSON.parse(first);
      } catch {
        continue;
      }
      const payload = field(meta, "payload");
      const id = field(payload, "id");
      if (field(meta, "type") !== "session_meta" || field(payload, "cwd") !== o.cwd) continue;
      if (typeof id !== "string" || !isThreadId(id)) continue;
      if (!best || mtime > best.mtime) best = { id, mtime };
    }
  }
  return Promise.resolve(best?.id);
}

/** The first line of a file (read in one bounded chunk: a `session_meta` line is small). */
function firstLine(file: string): string {
  const f = Deno.openSync(file);
  try {
    const buf = new Uint8Array(64 * 1024);
    const n = f.readSync(buf) ?? 0;
    const text = new TextDecoder().decode(buf.subarray(0, n));
    return text.split("\n")[0];
  } finally {
    f.close();
  }
}

/** The `codex` adapter. */
export const codexAdapter: HarnessAdapter = {
  name: "codex",
  program: "codex",
  ids: { kind: "output" },
  isResumableId: isThreadId,
  interactive: (o) => [
    ...codexFlags({ ...o, mode: "interactive" }),
    ...o.extraArgs,
    ...promptTail(o.prompt),
  ],
  resume: (o) => [
    "resume",
    ...codexFlags({ ...o, mode: "interactive" }),
    ...o.extraArgs,
    "--",
    o.sessionId,
    ...(o.prompt ? [o.prompt] : []),
  ],
  headless: (o) =>
    o.sessionId
      ? [
        "exec",
        "resume",
        "--json",
        ...codexResumeFlags(o),
        ...o.extraArgs,
        "--",
        o.sessionId,
        o.prompt,
      ]
      : [
        "exec",
        "--json",
        ...codexFlags({ ...o, mode: "headless" }),
        ...o.extraArgs,
        "--",
        o.prompt,
      ],
  sessionIdFromOutput: codexThreadOf,
  usageFromOutput: codexUsageOf,
  answerFromOutput: codexAnswerOf,
  settingsArgs: (o) => codexFlags(o),
  discoverId: discoverCodexId,
};
