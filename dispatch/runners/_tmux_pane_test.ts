import assert from "node:assert/strict";
import { clientEnv, type TmuxCli, tmuxOk } from "./_tmux_cli.ts";
import { TmuxControl } from "./_tmux_control.ts";
import { paneState, pasteIfAlive, pasteInto, startIn } from "./_tmux_pane.ts";

/** A private tmux server with a running `cat` and a pane whose process has ended (kept). */
async function setup(control: boolean) {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "the-loop-tmux-pane-" }));
  const cli: TmuxCli = {
    socket: `the-loop-test-${crypto.randomUUID()}`,
    env: { TMUX_TMPDIR: dir },
  };
  const warn = (m: string) => {
    throw new Error(m);
  };
  await startIn(cli, { name: "live", cwd: dir, argv: ["cat"], remainOnExit: true, warn });
  await startIn(cli, { name: "dead", cwd: dir, argv: ["true"], remainOnExit: true, warn });
  const until = Date.now() + 20_000;
  while ((await paneState(cli, "dead")) !== "dead") {
    if (Date.now() > until) throw new Error("the pane's process did not end");
    await new Promise((r) => setTimeout(r, 25));
  }
  if (control) cli.control = new TmuxControl({ ...cli }, () => clientEnv(cli));
  return {
    cli,
    tmux: (...args: string[]) => tmuxOk({ socket: cli.socket, env: cli.env }, [args]),
    async cleanup() {
      await (cli.control as TmuxControl | undefined)?.close();
      await tmuxOk({ socket: cli.socket, env: cli.env }, [["kill-server"]]).catch(() => {});
      await Deno.remove(dir, { recursive: true });
    },
  };
}

for (const control of [false, true]) {
  const mode = control ? " (control mode)" : "";

  Deno.test(`tmux paste: a paste that reaches a dead pane pastes nothing, and the server stays up${mode}`, async () => {
    // tmux 3.3's server crashes on a paste-buffer into a dead pane, taking every session with
    // it: pasteInto has no check of its own before the paste, so only the server-side guard helps
    const t = await setup(control);
    try {
      assert.equal(await pasteInto(t.cli, "dead", "into the dead pane"), false);
      assert.equal(await pasteIfAlive(t.cli, "dead", "again"), false);
      assert.equal(await pasteIfAlive(t.cli, "missing", "nobody"), false);
      const names = (await t.tmux("list-sessions", "-F", "#{session_name}")).split("\n");
      assert.ok(names.includes("live") && names.includes("dead"), `sessions: ${names}`);
      assert.equal((await t.tmux("list-buffers")).trim(), "", "no buffer is left behind");
      // the live pane still gets its paste, then the Enter
      assert.equal(await pasteInto(t.cli, "live", "hello; $HOME"), true);
      assert.equal(await pasteIfAlive(t.cli, "live", "second"), true);
      const until = Date.now() + 20_000;
      let screen = "";
      while (!/second/.test(screen) && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 25));
        screen = await t.tmux("capture-pane", "-p", "-t", "=live:");
      }
      assert.match(screen, /hello; \$HOME\n(hello; \$HOME\n)?second/);
      assert.equal((await t.tmux("list-buffers")).trim(), "");
    } finally {
      await t.cleanup();
    }
  });
}
