/**
 * The web terminal end to end: a real tmux server on a private socket (`tmux -S <dir>/tmux.sock`)
 * whose pane runs `cat`, a real HTTP server on 127.0.0.1 routing to {@linkcode terminalSocket},
 * and Deno's own WebSocket as the page.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { delay } from "../../async/mod.ts";
import { terminalSocket } from "./mod.ts";
import type { TerminalMode, TerminalServerMessage } from "./mod.ts";

const SESSION = "loop-github-octo-demo-1";
const REF = "github:octo/demo#1";

/** A private tmux server with the item's session (and another, so the server outlives it). */
async function rig() {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "the-loop-term-" }));
  const sock = join(dir, "tmux.sock");
  const tmux = async (...args: string[]): Promise<string> => {
    const out = await new Deno.Command("tmux", {
      args: ["-S", sock, "-f", "/dev/null", ...args],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder();
    if (!out.success) throw new Error(`tmux ${args[0]}: ${text.decode(out.stderr)}`);
    return text.decode(out.stdout);
  };
  const pane = `=${SESSION}:`;
  await tmux("new-session", "-d", "-s", "other", "-x", "80", "-y", "24");
  await tmux(
    "new-session",
    "-d",
    "-s",
    SESSION,
    "-x",
    "80",
    "-y",
    "24",
    "--",
    "sh",
    "-c",
    "printf 'hello from the pane \\303\\251\\n'; exec cat",
  );
  const screen = () => tmux("capture-pane", "-p", "-t", pane);
  await until("the pane's first line", async () => (await screen()).includes("hello from the"));
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const mode = (new URL(req.url).searchParams.get("mode") ?? "read-only") as TerminalMode;
    const session = new URL(req.url).searchParams.get("session") ?? SESSION;
    return terminalSocket(req, { ref: REF, tmuxArgs: ["-S", sock], session, mode });
  });
  const url = (mode: TerminalMode, session = SESSION) =>
    `ws://127.0.0.1:${server.addr.port}/api/v1/items/x/terminal?mode=${mode}&session=${session}`;
  /** The tmux clients attached to the server (the web terminals' control clients). */
  const clients = async () =>
    (await tmux("list-clients", "-F", "#{client_flags}")).split("\n").filter((l) => l);
  return {
    tmux,
    pane,
    screen,
    url,
    clients,
    /** Types into the pane as a person at a real terminal would (not through the web terminal). */
    type: async (text: string) => {
      await tmux("send-keys", "-t", pane, "-l", "--", text);
      await tmux("send-keys", "-t", pane, "Enter");
    },
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      await tmux("kill-server").catch(() => {});
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Waits for `check()` to hold, for up to `ms`; throws saying what did not happen. */
async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await delay(20);
  }
}

/** The page's end of the socket: every frame, in order, and the pane's bytes as text. */
class Page {
  readonly ws: WebSocket;
  readonly frames: (TerminalServerMessage | Uint8Array)[] = [];
  output = "";
  closed = false;
  readonly #decoder = new TextDecoder();

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.ws.binaryType = "arraybuffer";
    this.ws.onmessage = (e) => {
      if (typeof e.data === "string") this.frames.push(JSON.parse(e.data));
      else {
        const bytes = new Uint8Array(e.data);
        this.frames.push(bytes);
        this.output += this.#decoder.decode(bytes, { stream: true });
      }
    };
    this.ws.onclose = () => (this.closed = true);
  }

  messages(type: string): TerminalServerMessage[] {
    return this.frames.filter((f): f is TerminalServerMessage =>
      !(f instanceof Uint8Array) && f.type === type
    );
  }

  async hello(): Promise<Extract<TerminalServerMessage, { type: "hello" }>> {
    await until("the first frame", () => this.frames.length > 0);
    const first = this.frames[0];
    assert.ok(!(first instanceof Uint8Array), "the first frame is the hello");
    assert.equal(first.type, "hello");
    return first as Extract<TerminalServerMessage, { type: "hello" }>;
  }

  send(m: unknown): void {
    this.ws.send(JSON.stringify(m));
  }

  /** Sends a ping and waits for its pong: every message sent before it has been handled. */
  async roundTrip(id: number): Promise<void> {
    this.send({ type: "ping", id });
    await until(`pong ${id}`, () => this.messages("pong").some((m) => "id" in m && m.id === id));
  }

  async close(): Promise<void> {
    this.ws.close();
    await until("the socket to close", () => this.closed);
  }
}

Deno.test("web terminal, read-only: the first frame shows the pane, output streams, input and resizes are dropped", async () => {
  await using t = await rig();
  const page = new Page(t.url("read-only"));
  const hello = await page.hello();
  assert.equal(hello.mode, "read-only");
  assert.deepEqual([hello.cols, hello.rows], [80, 24]);
  assert.ok(hello.screen.includes("hello from the pane é"), hello.screen);
  assert.deepEqual(await t.clients(), [
    "attached,focused,control-mode,ignore-size,read-only,UTF-8",
  ]);

  await t.type("a later line");
  await until("the later line on the socket", () => page.output.includes("a later line\r\n"));

  page.send({ type: "input", data: "typed-in-read-only\r" });
  page.send({ type: "input", data: "\x1b[200~pasted-in-read-only\x1b[201~" });
  page.send({ type: "resize", cols: 120, rows: 40 });
  await page.roundTrip(1);
  // a line typed at the pane after them shows up, they never do
  await t.type("marker after the input");
  await until("the marker in the pane", async () => (await t.screen()).includes("marker after"));
  await until("the marker on the socket", () => page.output.includes("marker after the input"));
  const shown = await t.screen();
  assert.ok(!shown.includes("in-read-only"), shown);
  assert.ok(!page.output.includes("in-read-only"));
  assert.equal(
    await t.tmux("display-message", "-p", "-t", t.pane, "#{pane_width}x#{pane_height}"),
    "80x24\n",
  );

  await page.close();
  await until("no tmux client attached", async () => (await t.clients()).length === 0);
});

Deno.test("web terminal, interactive: typed text, keys and pastes reach the pane, a resize resizes it", async () => {
  await using t = await rig();
  const page = new Page(t.url("interactive"));
  await page.hello();
  assert.deepEqual(await t.clients(), ["attached,focused,control-mode,UTF-8"]);

  // two backspaces (DEL, as xterm.js sends them) and Enter, through the key whitelist
  page.send({ type: "input", data: "abc\x7f\x7fX\r" });
  await until("cat's echo of the typed line", () => page.output.includes("aX\r\n"));
  const lines = (await t.screen()).split("\n");
  assert.ok(lines.filter((l) => l === "aX").length >= 2, lines.join("\n")); // the tty's echo, cat's

  // text that looks like tmux commands is text, in a paste and typed alike
  page.send({ type: "input", data: '\x1b[200~pasted; kill-server ; "$HOME"\x1b[201~\r' });
  page.send({ type: "input", data: "typed; kill-session -t other ;\r" });
  await until("the typed line", () => page.output.includes("typed; kill-session -t other ;\r\n"));
  const shown = await t.screen();
  assert.ok(shown.includes('pasted; kill-server ; "$HOME"'), shown);
  assert.ok((await t.tmux("list-sessions", "-F", "#{session_name}")).includes("other"));

  page.send({ type: "resize", cols: 100, rows: 30 });
  await until(
    "the size message",
    () => page.messages("size").some((m) => m.type === "size" && m.cols === 100 && m.rows === 30),
  );
  assert.equal(
    await t.tmux("display-message", "-p", "-t", t.pane, "#{pane_width}x#{pane_height}"),
    "100x30\n",
  );

  await page.close();
  await until("no tmux client attached", async () => (await t.clients()).length === 0);
});

Deno.test("web terminal: when the session ends the socket says so and closes, no tmux client left", async () => {
  await using t = await rig();
  const page = new Page(t.url("read-only"));
  await page.hello();
  assert.equal((await t.clients()).length, 1);
  await t.tmux("kill-session", "-t", `=${SESSION}`);
  await until("the socket to close", () => page.closed);
  assert.deepEqual(page.messages("exit"), [{ type: "exit", reason: "the tmux session ended" }]);
  assert.deepEqual(await t.clients(), []);
});

Deno.test("web terminal: a client tmux moves to another session (detach-on-destroy off) ends too", async () => {
  await using t = await rig();
  await t.tmux("set-option", "-g", "detach-on-destroy", "off");
  const page = new Page(t.url("interactive"));
  await page.hello();
  await t.tmux("kill-session", "-t", `=${SESSION}`);
  await until("the socket to close", () => page.closed);
  assert.equal(page.messages("exit").length, 1);
  await until("no tmux client attached", async () => (await t.clients()).length === 0);
});

Deno.test("web terminal: a session that is not there is an exit message naming it, then a close", async () => {
  await using t = await rig();
  const page = new Page(t.url("interactive", "loop-github-octo-demo-9"));
  await until("the socket to close", () => page.closed);
  assert.deepEqual(page.frames.length, 1);
  const [exit] = page.messages("exit");
  assert.ok(
    exit?.type === "exit" &&
      /could not attach to session loop-github-octo-demo-9: can't find session/.test(exit.reason),
    exit && JSON.stringify(exit),
  );
  assert.deepEqual(await t.clients(), []);
});

Deno.test("web terminal: no upgrade is a 400, another site's page a 403, before anything attaches", async () => {
  const target = {
    ref: REF,
    tmuxArgs: ["-L", "unused"],
    session: SESSION,
    mode: "interactive" as const,
  };
  const url = "http://127.0.0.1:8080/api/v1/items/x/terminal";
  const plain = await terminalSocket(new Request(url), target);
  assert.equal(plain.status, 400);
  assert.match(await plain.text(), /WebSocket/);
  const upgrade = {
    upgrade: "websocket",
    connection: "Upgrade",
    "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
    "sec-websocket-version": "13",
    host: "127.0.0.1:8080",
  };
  const foreign = await terminalSocket(
    new Request(url, { headers: { ...upgrade, origin: "https://evil.example" } }),
    target,
  );
  assert.equal(foreign.status, 403);
  await foreign.body?.cancel();
});
