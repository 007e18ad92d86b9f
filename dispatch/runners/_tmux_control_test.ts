import assert from "node:assert/strict";
import { join } from "node:path";
import { clientEnv, type TmuxCli, tmuxOk } from "./_tmux_cli.ts";
import { TmuxControl } from "./_tmux_control.ts";
import { controlLine, quoteWord } from "./tmux_words.ts";

/** A private tmux server with one plain session, and a control client on it. */
async function setup() {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "the-loop-tmux-ctl-" }));
  const cli: TmuxCli = {
    socket: `the-loop-test-${crypto.randomUUID()}`,
    env: { TMUX_TMPDIR: dir },
  };
  await tmuxOk(cli, [["new-session", "-d", "-s", "work", "-x", "80", "-y", "20"]]);
  const control = new TmuxControl(cli, () => clientEnv(cli));
  const names = async () =>
    (await tmuxOk(cli, [["list-sessions", "-F", "#{session_name}"]])).split("\n").filter((l) => l);
  return {
    dir,
    cli,
    control,
    names,
    async cleanup() {
      await control.close();
      await tmuxOk(cli, [["kill-server"]]).catch(() => {});
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const NASTY = [
  "plain",
  "a\"b\\c$HOME ~/x #{pane_id} ; x\ty\nline two é 🎉 'q' \\; end;",
  "\x01\x1b[31mred\x7f\r\n\\n literal",
  "~ at the start",
  "~",
  "$",
  "a\\",
  "-starts-with-a-dash",
  "#{session_name}",
  "x".repeat(40_000) + "\nthe end",
];

Deno.test("tmux control: every text goes into a buffer exactly as given, whatever it holds", async () => {
  const t = await setup();
  try {
    for (const [i, text] of NASTY.entries()) {
      const file = join(t.dir, `buffer-${i}`);
      const out = await t.control.run([
        ["set-buffer", "-b", `b${i}`, "--", text],
        ["save-buffer", "-b", `b${i}`, file],
      ]);
      assert.equal(out?.code, 0, out?.stderr);
      assert.equal(await Deno.readTextFile(file), text, `text ${i}`);
    }
  } finally {
    await t.cleanup();
  }
});

Deno.test("tmux control: answers come back to their own commands, output included", async () => {
  const t = await setup();
  try {
    // a user's hook that runs a command of its own must not shift the answers
    await tmuxOk(t.cli, [["set-hook", "-g", "after-set-buffer", "display-message hooked"]]);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        t.control.run([
          ["set-buffer", "-b", `n${i}`, "--", `value ${i}`],
          ["show-buffer", "-b", `n${i}`],
        ])),
    );
    answers.forEach((out, i) =>
      assert.deepEqual(out, { code: 0, stdout: `value ${i}\n`, stderr: "" })
    );
  } finally {
    await t.cleanup();
  }
});

Deno.test("tmux control: a sequence stops at the first failure and says why", async () => {
  const t = await setup();
  try {
    const out = await t.control.run([
      ["display-message", "-p", "first"],
      ["list-panes", "-t", "=no-such-session:"],
      ["set-buffer", "-b", "never", "--", "x"],
    ]);
    assert.equal(out?.code, 1);
    assert.equal(out?.stdout, "first\n");
    assert.match(out?.stderr ?? "", /can't find session/);
    const after = await t.control.run([["list-buffers", "-F", "#{buffer_name}"]]);
    assert.ok(after, "the client still answers");
    assert.ok(!after.stdout.includes("never"), "the command after the failure did not run");
  } finally {
    await t.cleanup();
  }
});

Deno.test("tmux control: sequences that fail part-way, sent together, each get their own answer", async () => {
  const t = await setup();
  try {
    // each sequence is one line answered by one block a command until the first failure: a
    // failing one answers fewer blocks, and the answers after it must still find their commands
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        t.control.run([
          ["set-buffer", "-b", `m${i}`, "--", `value ${i}`],
          i % 3 === 0 ? ["list-panes", "-t", `=no-such-${i}:`] : ["show-buffer", "-b", `m${i}`],
          ["display-message", "-p", `after ${i}`],
        ])),
    );
    answers.forEach((out, i) => {
      if (i % 3 === 0) {
        assert.equal(out?.code, 1, `sequence ${i}`);
        assert.equal(out?.stdout, "", `sequence ${i}`);
        assert.match(out?.stderr ?? "", new RegExp(`can't find session: no-such-${i}`));
      } else {
        assert.deepEqual(out, { code: 0, stdout: `value ${i}\nafter ${i}\n`, stderr: "" });
      }
    });
  } finally {
    await t.cleanup();
  }
});

Deno.test("tmux control: the client's own session is there while it runs and gone after close", async () => {
  const t = await setup();
  try {
    assert.deepEqual(await t.names(), ["work"]);
    assert.equal((await t.control.run([["display-message", "-p", "hi"]]))?.stdout, "hi\n");
    assert.deepEqual((await t.names()).sort(), [t.control.name, "work"].sort());
    await t.control.close();
    assert.deepEqual(await t.names(), ["work"]);
    assert.equal(await t.control.run([["display-message", "-p", "hi"]]), undefined);
  } finally {
    await t.cleanup();
  }
});

Deno.test("tmux control: a server that went away makes run() answer undefined (run it another way)", async () => {
  const t = await setup();
  try {
    assert.equal((await t.control.run([["display-message", "-p", "up"]]))?.code, 0);
    await tmuxOk(t.cli, [["kill-server"]]);
    // the client noticed, or notices now: either way nothing hangs and nothing is claimed done
    const next = await t.control.run([["display-message", "-p", "again"]]).catch((e) => e);
    assert.ok(next === undefined || next instanceof Error, `got ${JSON.stringify(next)}`);
    assert.equal(await t.control.run([["display-message", "-p", "again"]]), undefined);
  } finally {
    await t.cleanup();
  }
});

Deno.test("tmux control: the session of a SIGKILLed owner ends by itself", async () => {
  const t = await setup();
  const owner = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { TmuxControl } from ${JSON.stringify(import.meta.resolve("./_tmux_control.ts"))};
       const cli = ${JSON.stringify(t.cli)};
       const c = new TmuxControl(cli, () => ({ ...Deno.env.toObject(), ...cli.env }));
       const out = await c.run([["display-message", "-p", c.name]]);
       console.log(out.stdout.trim());
       await new Promise(() => {});`,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  try {
    const reader = owner.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const { value } = await reader.read();
    const name = value?.trim() ?? "";
    assert.match(name, /^the-loop-ctl-\d+-1$/);
    assert.ok((await t.names()).includes(name));
    owner.kill("SIGKILL");
    await owner.status;
    reader.releaseLock();
    await owner.stdout.cancel().catch(() => {});
    const until = Date.now() + 20_000;
    while ((await t.names()).includes(name)) {
      if (Date.now() > until) throw new Error(`${name} outlived its owner`);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(await t.names(), ["work"]);
  } finally {
    await t.cleanup();
  }
});

Deno.test("tmux control: a command line is its words, each quoted", () => {
  assert.equal(controlLine(["send-keys", "-t", "=a:", "Enter"]), '"send-keys" "-t" "=a:" "Enter"');
  assert.equal(quoteWord('~/"$x"\n'), '"\\176/\\"\\$x\\"\\n"');
});
