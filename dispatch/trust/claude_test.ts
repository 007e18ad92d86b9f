import assert from "node:assert/strict";
import { join } from "node:path";
import type { RoutingConfig } from "../../config/types.ts";
import { MemorySink } from "../../events/mod.ts";
import { ClaudeTrust } from "./mod.ts";

type TrustConfig = RoutingConfig["harnessTrust"];
const DEFAULTS: TrustConfig = {
  enabled: true,
  scope: "workspace-root",
  acceptBypassPermissions: "auto",
};

interface Setup {
  config?: Partial<TrustConfig>;
  /** The workspace root; `"$HOME"` means the test's home itself. */
  root?: string | null;
  configDir?: boolean;
}

async function setup(o: Setup = {}) {
  const home = await Deno.makeTempDir({ prefix: "the-loop-trust-" });
  const root = o.root === undefined ? join(home, "workspaces") : o.root === "$HOME" ? home : o.root;
  const cwd = join(home, "workspaces", "github.com", "octo", "repo", "15");
  await Deno.mkdir(cwd, { recursive: true });
  const vars: Record<string, string> = { HOME: home };
  if (o.configDir) vars.CLAUDE_CONFIG_DIR = join(home, "claude-config");
  const events = new MemorySink();
  const warnings: string[] = [];
  const trust = new ClaudeTrust({
    config: { ...DEFAULTS, ...o.config },
    workspaceRoot: root,
    env: (name) => vars[name],
    events,
    warn: (m) => warnings.push(m),
  });
  return {
    home,
    root,
    cwd,
    events,
    warnings,
    trust,
    configFile: join(home, ".claude.json"),
    settingsFile: join(home, ".claude", "settings.json"),
    read: async (file: string) => JSON.parse(await Deno.readTextFile(file)),
    [Symbol.asyncDispose]: () => Deno.remove(home, { recursive: true }),
  };
}

const exists = (p: string) => Deno.lstat(p).then(() => true, () => false);

Deno.test("workspace-root scope trusts the root once and onboards the spawn directory", async () => {
  await using s = await setup();
  await s.trust.prepare({ harness: "claude", cwd: s.cwd, extraArgs: [] });
  assert.deepEqual(await s.read(s.configFile), {
    projects: {
      [s.root!]: { hasTrustDialogAccepted: true },
      [s.cwd]: { hasCompletedProjectOnboarding: true },
    },
  });
  assert.equal((await Deno.stat(s.configFile)).mode! & 0o777, 0o600);
  assert.equal(await exists(s.settingsFile), false, "no bypass asked: user settings untouched");
  const [applied] = s.events.ofType("workspace.trust_applied");
  assert.equal(applied.file, s.configFile);
  assert.equal(applied.scope, "workspace-root");
  assert.deepEqual(applied.keys, [
    `projects[${JSON.stringify(s.root)}].hasTrustDialogAccepted`,
    `projects[${JSON.stringify(s.cwd)}].hasCompletedProjectOnboarding`,
  ]);
  assert.deepEqual(s.warnings, []);
});

Deno.test("directory scope (and no workspace root) trusts only the spawn directory", async () => {
  for (const o of [{ config: { scope: "directory" as const } }, { root: null }]) {
    await using s = await setup(o);
    await s.trust.prepare({ harness: "claude", cwd: s.cwd, extraArgs: [] });
    assert.deepEqual(await s.read(s.configFile), {
      projects: { [s.cwd]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
    });
    assert.equal(s.events.ofType("workspace.trust_applied")[0].scope, "directory");
    assert.equal(s.events.ofType("workspace.trust_degraded").length, 0);
  }
});

Deno.test("the keys are merged: other keys, their order, the indentation and the mode are kept", async () => {
  await using s = await setup({ config: { scope: "directory" } });
  const before = {
    numStartups: 3,
    projects: { "/elsewhere": { allowedTools: ["Bash"], hasTrustDialogAccepted: false } },
    theme: "dark",
  };
  await Deno.writeTextFile(s.configFile, JSON.stringify(before, null, 4) + "\n", { mode: 0o644 });
  await Deno.chmod(s.configFile, 0o644);
  await s.trust.prepare({ harness: "claude", cwd: s.cwd, extraArgs: [] });
  const text = await Deno.readTextFile(s.configFile);
  const after = JSON.parse(text);
  assert.deepEqual(Object.keys(after), ["numStartups", "projects", "theme"]);
  assert.deepEqual(Object.keys(after.projects), ["/elsewhere", s.cwd]);
  assert.deepEqual(after.projects["/elsewhere"], before.projects["/elsewhere"]);
  assert.match(text, /^\{\n {4}"numStartups": 3,/);
  assert.ok(text.endsWith("}\n"));
  assert.equal((await Deno.stat(s.configFile)).mode! & 0o777, 0o644);
});

Deno.test("nothing is written when every key is already right", async () => {
  await using s = await setup({ config: { acceptBypassPermissions: "always" } });
  await s.trust.prepare({ harness: "claude", cwd: s.cwd, extraArgs: [] });
  const stat = async (f: string) => {
    const st = await Deno.stat(f);
    return { ino: st.ino, mtime: st.mtime?.getTime() };
  };
  const before = [await stat(s.configFile), await stat(s.settingsFile)];
  const applied = s.events.ofType("workspace.trust_applied").length;
  await s.trust.prepare({ harness: "claude", cwd: s.cwd, extraArgs: [] });
  assert.deepEqual([await stat(s.configFile), await stat(s.settingsFile)], before);
  assert.equal(s.events.ofType("workspace.trust_applied").length, applied);
  const names = [...Deno.readDirSync(s.home)].map((e) => e.name);
  assert.ok(!names.some((n) => n.endsWith(".tmp")), names.join(", "));
});

Deno.test("a file that does not parse is reported and left alone; the rest still happens", async () => {
  await using s = await setup({ config: { acceptBypassPermissions: "always" } });
  await Deno.writeTextFile(s.configFile, "{ not json");
  await s.trust.prepare({ harness: "claude", cwd: s.cwd, extraArgs: [] });
  assert.equal(await Deno.readTextFile(s.configFile), "{ not json");
  const [failed] = s.events.ofType("workspace.trust_failed");
  assert.equal(failed.file, s.configFile);
  assert.match(String(failed.error), /not valid JSON/);
  assert.equal(s.warnings.length, 1);
  assert.match(s.warnings[0], /spawned anyway/);
  assert.deepEqual(await s.read(s.settingsFile), { skipDangerousModePermissionPrompt: true });
});

Deno.test("a root of / or $HOME degrades to the spawn directory with a warning", async () => {
  for (const root of ["/", "$HOME"]) {
    await using s = await setup({ root });
    await s.trust.prepare({ harness: "claude", cwd: s.cwd, extraArgs: [] });
    assert.deepEqual(await s.read(s.configFile), {
      projects: { [s.cwd]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
    });
    const [degraded] = s.events.ofType("workspace.trust_degraded");
    assert.equal(degraded.reason, "too-broad");
    assert.equal(degraded.level, "warning");
    assert.equal(s.warnings.length, 1);
    assert.match(s.warnings[0], /too broad/);
  }
});

Deno.test("a root that does not contain the spawn directory is not trusted", async () => {
  await using s = await setup({ root: "/somewhere/else" });
  await s.trust.prepare({ harness: "claude", cwd: s.cwd, extraArgs: [] });
  const config = await s.read(s.configFile);
  assert.deepEqual(Object.keys(config.projects), [s.cwd]);
  assert.equal(config.projects[s.cwd].hasTrustDialogAccepted, true);
  assert.equal(s.events.ofType("workspace.trust_degraded")[0].reason, "not-containing");
});

Deno.test("the bypass disclaimer is accepted only as acceptBypassPermissions says", async () => {
  const cases: [TrustConfig["acceptBypassPermissions"], string[], boolean][] = [
    ["auto", [], false],
    ["auto", ["--permission-mode", "acceptEdits"], false],
    ["auto", ["--dangerously-skip-permissions"], true],
    ["auto", ["--permission-mode", "bypassPermissions"], true],
    ["auto", ["--permission-mode=bypassPermissions"], true],
    ["always", [], true],
    ["never", ["--dangerously-skip-permissions"], false],
  ];
  for (const [accept, extraArgs, written] of cases) {
    await using s = await setup({ config: { acceptBypassPermissions: accept } });
    await Deno.mkdir(join(s.home, ".claude"));
    await Deno.writeTextFile(s.settingsFile, `{"model": "opus"}`);
    await s.trust.prepare({ harness: "claude", cwd: s.cwd, extraArgs });
    const settings = await s.read(s.settingsFile);
    const label = `${accept} ${extraArgs.join(" ")}`;
    if (written) {
      assert.deepEqual(settings, { model: "opus", skipDangerousModePermissionPrompt: true }, label);
    } else {
      assert.deepEqual(settings, { model: "opus" }, label);
    }
  }
});

Deno.test("CLAUDE_CONFIG_DIR holds both files when it is set", async () => {
  await using s = await setup({ configDir: true, config: { acceptBypassPermissions: "always" } });
  await s.trust.prepare({ harness: "claude", cwd: s.cwd, extraArgs: [] });
  const dir = join(s.home, "claude-config");
  assert.equal(
    (await s.read(join(dir, ".claude.json"))).projects[s.cwd].hasCompletedProjectOnboarding,
    true,
  );
  assert.deepEqual(await s.read(join(dir, "settings.json")), {
    skipDangerousModePermissionPrompt: true,
  });
  assert.equal(await exists(s.configFile), false);
  assert.equal(await exists(s.settingsFile), false);
});

Deno.test("cursor, and a disabled harnessTrust, touch nothing", async () => {
  await using a = await setup({ config: { acceptBypassPermissions: "always" } });
  await a.trust.prepare({ harness: "cursor", cwd: a.cwd, extraArgs: [] });
  await using b = await setup({ config: { enabled: false, acceptBypassPermissions: "always" } });
  await b.trust.prepare({ harness: "claude", cwd: b.cwd, extraArgs: [] });
  for (const s of [a, b]) {
    assert.equal(await exists(s.configFile), false);
    assert.equal(await exists(s.settingsFile), false);
    assert.deepEqual(s.events.records, []);
  }
});

Deno.test("spawns prepared at once each get their keys (no lost update)", async () => {
  await using s = await setup({ config: { scope: "directory" } });
  const dirs = [1, 2, 3, 4].map((n) => join(s.home, "workspaces", String(n)));
  await Promise.all(dirs.map((cwd) => s.trust.prepare({ harness: "claude", cwd, extraArgs: [] })));
  assert.deepEqual(Object.keys((await s.read(s.configFile)).projects).sort(), [...dirs].sort());
});

Deno.test("a symlinked config file is updated through the link", async () => {
  await using s = await setup({ config: { scope: "directory" } });
  const real = join(s.home, "dotfiles", "claude.json");
  await Deno.mkdir(join(s.home, "dotfiles"));
  await Deno.writeTextFile(real, "{}\n");
  await Deno.symlink(real, s.configFile);
  await s.trust.prepare({ harness: "claude", cwd: s.cwd, extraArgs: [] });
  assert.ok((await Deno.lstat(s.configFile)).isSymlink);
  assert.equal((await s.read(real)).projects[s.cwd].hasTrustDialogAccepted, true);
});
