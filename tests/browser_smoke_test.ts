/**
 * The browser rig proves itself on a small page served from 127.0.0.1 (the status page's tests
 * are built on the same moves): a list read as text, a line the server pushes over a server-sent
 * event stream appearing live, typing into a textarea and clicking a button that POSTs what was
 * typed, console errors collected, a screenshot written, and nothing of Chromium left behind.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  browserSkipped,
  browserTest,
  processesNaming,
  screenshotIfAsked,
  type TestBrowser,
  withBrowser,
} from "./_browser.ts";
import denoJson from "../deno.json" with { type: "json" };
import { ROOT, until } from "./_test_utils.ts";

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>rig</title>
<link rel="icon" href="data:,"></head>
<body>
<h1>The rig</h1>
<ul id="items"><li>alpha</li><li>beta &amp; gamma</li></ul>
<ol id="live"></ol>
<textarea id="reply"></textarea>
<button id="send">Send</button>
<p id="status"></p>
<script>
const live = document.getElementById("live");
const events = new EventSource("/events");
events.onmessage = (e) => {
  const li = document.createElement("li");
  li.textContent = e.data;
  live.append(li);
};
document.getElementById("send").addEventListener("click", async () => {
  const body = document.getElementById("reply").value;
  const res = await fetch("/reply", { method: "POST", body });
  document.getElementById("status").textContent = await res.text();
});
</script>
</body></html>`;

/** The page's server: the HTML, an event stream it can push to, and the bodies POSTed to it. */
function servePage() {
  const streams = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const posted: string[] = [];
  const enc = new TextEncoder();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname;
    if (req.method === "GET" && path === "/") {
      return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
    }
    if (req.method === "GET" && path === "/events") {
      let mine: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          mine = c;
          streams.add(c);
          c.enqueue(enc.encode(": hello\n\n"));
        },
        cancel() {
          streams.delete(mine);
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    }
    if (req.method === "POST" && path === "/reply") {
      const text = await req.text();
      posted.push(text);
      return new Response(`received ${text.length} characters`);
    }
    return new Response("not found", { status: 404 });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/`,
    streams,
    posted,
    push(line: string) {
      for (const c of streams) c.enqueue(enc.encode(`data: ${line}\n\n`));
    },
    async close() {
      for (const c of streams) c.close();
      streams.clear();
      await server.shutdown();
    },
  };
}

browserTest("the rig reads a list, sees a pushed line live, and types and clicks a POST", async (
  browser: TestBrowser,
) => {
  const site = servePage();
  try {
    const page = await browser.openPage(site.url);
    assert.deepEqual(await page.texts("#items li"), ["alpha", "beta & gamma"]);
    assert.equal(await page.text("h1"), "The rig");

    // Live: the line is pushed only once the page's stream is open, and then appears.
    await until("the page's event stream to connect", () => site.streams.size === 1, 10_000);
    assert.deepEqual(await page.texts("#live li"), []);
    site.push("question from octo/demo#1: which port?");
    await page.waitForText("#live li", "which port?");

    // Typing into the textarea and clicking the button POSTs exactly what was typed.
    const reply = "port 8080 <b>not bold</b>\nsecond line";
    await page.type("#reply", reply);
    await page.click("#send");
    await until("the server to receive the reply", () => site.posted.length === 1, 10_000);
    assert.deepEqual(site.posted, [reply]);
    await page.waitForText("#status", `received ${reply.length} characters`);

    const shot = join(await Deno.makeTempDir({ prefix: "the-loop-shot-" }), "rig.png");
    await page.screenshot(shot);
    const png = await Deno.readFile(shot);
    assert.deepEqual([...png.slice(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
    const view = new DataView(png.buffer);
    assert.deepEqual([view.getUint32(16), view.getUint32(20)], [1280, 800]); // IHDR width, height
    await Deno.remove(shot);

    assert.deepEqual(page.consoleErrors, []);
  } finally {
    await site.close();
  }
});

browserTest("a wait that never holds fails at its deadline, saying what the page shows", async (
  browser,
) => {
  const page = await browser.openPage(
    "data:text/html,<p id=greeting>hello there</p>",
  );
  await assert.rejects(
    () => page.waitForText("#greeting", "goodbye", { timeoutMs: 300 }),
    (e: Error) => {
      assert.match(e.message, /timed out after 300 ms waiting for #greeting with text goodbye/);
      assert.match(e.message, /the page shows: "hello there"/);
      return true;
    },
  );
  await page.waitForText("#greeting", /^hello \w+$/);
});

browserTest("console errors and uncaught errors are collected in order", async (browser) => {
  const page = await browser.openPage(
    `data:text/html,<script>console.error("first", 1);setTimeout(() => { throw new Error("second") })</script>`,
  );
  await until("both errors to be seen", () => page.consoleErrors.length === 2, 10_000);
  assert.match(page.consoleErrors[0], /^console\.error: first 1/);
  assert.match(page.consoleErrors[1], /^uncaught: .*second/);
});

browserTest("screenshotIfAsked writes only when a target is named", async (browser) => {
  const page = await browser.openPage("data:text/html,<h1>shot</h1>");
  assert.equal(await screenshotIfAsked(page, ""), undefined);
  const target = join(await Deno.makeTempDir({ prefix: "the-loop-shot-" }), "sub", "ui.png");
  assert.equal(await screenshotIfAsked(page, target), target);
  assert.ok((await Deno.stat(target)).size > 0);
  await Deno.remove(join(target, "..", ".."), { recursive: true });
});

Deno.test({
  name: "deno task screenshot writes a PNG of a running page once its selector is there",
  ignore: browserSkipped(),
  async fn() {
    const site = servePage();
    const out = join(await Deno.makeTempDir({ prefix: "the-loop-shot-" }), "page.png");
    try {
      const words = denoJson.tasks.screenshot.split(/\s+/);
      assert.equal(words[0], "deno");
      const args = [...words.slice(1), site.url, out, "--wait-for", "#items li", "--width", "800"];
      const run = await new Deno.Command(Deno.execPath(), { args, cwd: ROOT, stdout: "piped" })
        .output();
      assert.equal(run.code, 0);
      assert.equal(new TextDecoder().decode(run.stdout).trim(), out);
      const png = await Deno.readFile(out);
      assert.equal(new DataView(png.buffer).getUint32(16), 800); // IHDR width
    } finally {
      await site.close();
      await Deno.remove(join(out, ".."), { recursive: true });
    }
  },
});

Deno.test({
  name: "withBrowser leaves no Chromium process and no profile behind, even when the test throws",
  ignore: browserSkipped(),
  async fn() {
    let profile = "";
    let pids: number[] = [];
    await assert.rejects(
      () =>
        withBrowser(async (browser) => {
          profile = browser.profileDir;
          await browser.openPage("data:text/html,<p>x</p>");
          pids = await processesNaming(profile);
          throw new Error("the test's own failure");
        }),
      /the test's own failure/,
    );
    assert.ok(pids.length >= 2, `Chromium ran as several processes (${pids})`);
    assert.deepEqual(await processesNaming(profile), []);
    await assert.rejects(() => Deno.stat(profile), Deno.errors.NotFound);
  },
});

Deno.test("without Chromium the browser tests fail, saying to apt-get install chromium", async () => {
  await assert.rejects(
    () => withBrowser(() => Promise.resolve(), { executable: "/nonexistent/chromium" }),
    (e: Error) => {
      assert.match(e.message, /no executable at \/nonexistent\/chromium/);
      assert.match(e.message, /apt-get install chromium/);
      assert.match(e.message, /THE_LOOP_SKIP_BROWSER=1/);
      return true;
    },
  );
});
