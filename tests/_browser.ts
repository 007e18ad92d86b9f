/**
 * The browser tests' rig: Debian's headless Chromium driven by `puppeteer-core` (see
 * docs/decisions/0017-browser-tests.md). {@linkcode withBrowser} launches Chromium in a private
 * profile directory, hands the test a {@linkcode TestBrowser}, and always closes it again: the
 * browser, every process that names the profile, and the profile itself are gone when it returns
 * (or throws). {@linkcode TestBrowser.openPage} gives a {@linkcode TestPage}: waits with a
 * deadline (never a sleep), clicks, typing, text, screenshots, and the console errors the page
 * logged.
 *
 * Chromium missing is a failure that says `apt-get install chromium` (`.ci/run` installs it);
 * `THE_LOOP_SKIP_BROWSER=1` is the one explicit way out: {@linkcode browserTest} then registers
 * its tests as ignored. `THE_LOOP_CHROMIUM` names another executable than `/usr/bin/chromium`.
 *
 * @example A browser test
 * ```ts
 * browserTest("the page lists the item", async (browser) => {
 *   const page = await browser.openPage(url);
 *   await page.waitForText("#items", "octo/demo#1");
 *   assert.deepEqual(page.consoleErrors, []);
 * });
 * ```
 *
 * @module
 */
import { dirname, isAbsolute, join } from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { ROOT } from "./_test_utils.ts";

/** The variable that ignores the browser tests when it is `1` (for machines without Chromium). */
export const SKIP_ENV = "THE_LOOP_SKIP_BROWSER";
/** The variable that names the Chromium executable (default {@linkcode DEFAULT_CHROMIUM}). */
export const CHROMIUM_ENV = "THE_LOOP_CHROMIUM";
/** Debian's `chromium` package puts its launcher here. */
export const DEFAULT_CHROMIUM = "/usr/bin/chromium";
/** The variable naming where {@linkcode screenshotIfAsked} writes (the README's shot). */
export const SCREENSHOT_ENV = "THE_LOOP_SCREENSHOT";

/** Options for {@linkcode withBrowser}. */
export interface BrowserOptions {
  /** The Chromium executable; default `$THE_LOOP_CHROMIUM`, else `/usr/bin/chromium`. */
  executable?: string;
  /** The bound on each wait, click and type, in ms; default 10 000 (it only fails a hung test). */
  timeoutMs?: number;
  /** The pages' viewport; default 1280 × 800. */
  viewport?: { width: number; height: number };
}

/** Options for a wait. */
export interface WaitOptions {
  /** The deadline in ms; default the browser's `timeoutMs`. */
  timeoutMs?: number;
}

/** A running headless Chromium, for the span of {@linkcode withBrowser}'s callback. */
export interface TestBrowser {
  /** Opens a new tab, at `url` when given (waiting for its `load`). */
  openPage(url?: string): Promise<TestPage>;
  /** The browser's private profile (user-data-dir); removed when the browser closes. */
  readonly profileDir: string;
  /** How long the launch took, in ms (until the DevTools connection was up). */
  readonly launchMs: number;
  /** The puppeteer `Browser`, for what this face does not cover. */
  readonly raw: Browser;
}

/** One tab, with the moves a page test makes. */
export interface TestPage {
  /** Navigates to `url` and waits for its `load` event. */
  goto(url: string): Promise<void>;
  /** Waits until an element matches `selector` (present in the DOM). */
  waitFor(selector: string, opts?: WaitOptions): Promise<void>;
  /**
   * Waits until an element matching `selector` has a textContent that contains `text` (or
   * matches it, for a RegExp).
   */
  waitForText(selector: string, text: string | RegExp, opts?: WaitOptions): Promise<void>;
  /** Waits for `selector` to be visible and enabled, then clicks it. */
  click(selector: string, opts?: WaitOptions): Promise<void>;
  /** Waits for the textarea or input `selector`, clears it, and types `text` into it as keys. */
  type(selector: string, text: string, opts?: WaitOptions): Promise<void>;
  /** The textContent of the first element matching `selector` (waiting for it). */
  text(selector: string, opts?: WaitOptions): Promise<string>;
  /** The textContents of every element matching `selector` now (no wait; maybe none). */
  texts(selector: string): Promise<string[]>;
  /** Writes a PNG of the page to `path` (its folder made); `fullPage` for all of it. */
  screenshot(path: string, opts?: { fullPage?: boolean }): Promise<void>;
  /** What the page logged with `console.error` and its uncaught errors, in order. */
  readonly consoleErrors: readonly string[];
  /** The page's URL now. */
  url(): string;
  /** The puppeteer `Page`, for what this face does not cover. */
  readonly raw: Page;
}

/** Whether the browser tests are switched off (`THE_LOOP_SKIP_BROWSER=1`). */
export function browserSkipped(): boolean {
  return Deno.env.get(SKIP_ENV) === "1";
}

/**
 * Registers a `Deno.test` that runs `fn` inside {@linkcode withBrowser}; ignored (reported as
 * such, never passed) when `THE_LOOP_SKIP_BROWSER=1`.
 */
export function browserTest(
  name: string,
  fn: (browser: TestBrowser) => Promise<void>,
  opts: BrowserOptions = {},
): void {
  Deno.test({ name, ignore: browserSkipped(), fn: () => withBrowser(fn, opts) });
}

/**
 * Launches headless Chromium in a fresh profile, runs `fn` with it, and closes it whatever `fn`
 * did: the browser is closed (killed if it does not close), every process that names the profile
 * is waited for (killed past a deadline), and the profile is removed. Throws, saying to
 * `apt-get install chromium`, when the executable is missing.
 */
export async function withBrowser<T>(
  fn: (browser: TestBrowser) => Promise<T>,
  opts: BrowserOptions = {},
): Promise<T> {
  const executable = opts.executable ?? Deno.env.get(CHROMIUM_ENV) ?? DEFAULT_CHROMIUM;
  await requireChromium(executable);
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const profileDir = await Deno.makeTempDir({ prefix: "the-loop-chromium-" });
  let browser: Browser | undefined;
  let result: T;
  try {
    const start = performance.now();
    browser = await puppeteer.launch({
      executablePath: executable,
      headless: true,
      userDataDir: profileDir,
      args: [
        ...(await isRoot() ? ["--no-sandbox"] : []), // Chromium's sandbox refuses to run as root
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
      ],
      defaultViewport: opts.viewport ?? { width: 1280, height: 800 },
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: 30_000,
      protocolTimeout: Math.max(30_000, timeoutMs * 2),
    });
    const launchMs = performance.now() - start;
    const launched = browser;
    result = await fn({
      profileDir,
      launchMs,
      raw: launched,
      openPage: (url) => openPage(launched, timeoutMs, url),
    });
  } catch (error) {
    await closeBrowser(browser, profileDir).catch((cleanup) => {
      console.error(`withBrowser: cleaning up after a failure also failed: ${cleanup}`);
    });
    throw error;
  }
  await closeBrowser(browser, profileDir);
  return result;
}

/** Opens `url` in a fresh browser and runs `fn` on its page (withBrowser + openPage). */
export function withPage<T>(
  url: string,
  fn: (page: TestPage) => Promise<T>,
  opts: BrowserOptions = {},
): Promise<T> {
  return withBrowser(async (browser) => fn(await browser.openPage(url)), opts);
}

/**
 * Writes a screenshot of `page` to `target` (default `$THE_LOOP_SCREENSHOT`; relative to the
 * repository root) and returns the path written, or does nothing and returns `undefined` when
 * neither names one. For the README's picture: `THE_LOOP_SCREENSHOT=docs/ui.png deno test -A
 * tests/<the page test>.ts`.
 */
export async function screenshotIfAsked(
  page: TestPage,
  target: string | undefined = Deno.env.get(SCREENSHOT_ENV),
): Promise<string | undefined> {
  if (!target) return undefined;
  const path = isAbsolute(target) ? target : join(ROOT, target);
  await page.screenshot(path, { fullPage: true });
  return path;
}

/**
 * The pids of the live processes whose command line names `profileDir` (zombies excluded), read
 * with `ps` (Deno lets only `--allow-all` read `/proc/<pid>`).
 */
export async function processesNaming(profileDir: string): Promise<number[]> {
  const out = await run("ps", ["-eo", "pid=,stat=,args="]);
  const pids: number[] = [];
  for (const line of out.split("\n")) {
    const m = /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (m && !m[2].startsWith("Z") && m[3].includes(profileDir)) pids.push(Number(m[1]));
  }
  return pids;
}

// ---- the shell around puppeteer ----

async function requireChromium(executable: string): Promise<void> {
  try {
    const info = await Deno.stat(executable);
    if (info.isFile) return;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  throw new Error(
    `Chromium is not installed (no executable at ${executable}): the browser tests drive Debian's ` +
      `headless chromium. Install it with \`apt-get install chromium\` (bash .ci/run does), point ` +
      `${CHROMIUM_ENV} at another build, or set ${SKIP_ENV}=1 to ignore the browser tests.`,
  );
}

/** Whether we run as root, from `id -u` (Deno.uid() would need --allow-sys). */
async function isRoot(): Promise<boolean> {
  return (await run("id", ["-u"])).trim() === "0";
}

async function run(command: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(command, { args, stdout: "piped", stderr: "piped" }).output();
  const dec = new TextDecoder();
  if (!out.success) {
    throw new Error(`${command} ${args.join(" ")} failed (${out.code}): ${dec.decode(out.stderr)}`);
  }
  return dec.decode(out.stdout);
}

async function closeBrowser(browser: Browser | undefined, profileDir: string): Promise<void> {
  if (browser) {
    const child = browser.process();
    const closed = await withDeadline(browser.close().then(() => true), 5_000, false)
      .catch(() => false);
    if (!closed && child && child.exitCode === null) child.kill("SIGKILL");
  }
  // Chromium's helpers (zygote, GPU, crashpad) name the profile and can outlive the browser a
  // moment: wait for them, kill what stays.
  if (!(await gone(profileDir, 5_000))) {
    for (const pid of await processesNaming(profileDir)) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* already gone */ }
    }
    if (!(await gone(profileDir, 5_000))) {
      const left = await processesNaming(profileDir);
      throw new Error(`Chromium processes ${left.join(", ")} outlived the browser test`);
    }
  }
  await removeTree(profileDir);
}

async function gone(profileDir: string, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while ((await processesNaming(profileDir)).length > 0) {
    if (Date.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}

async function removeTree(dir: string): Promise<void> {
  const end = Date.now() + 5_000;
  for (;;) {
    try {
      await Deno.remove(dir, { recursive: true });
      return;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      if (Date.now() > end) {
        throw new Error(`could not remove Chromium's profile ${dir}: ${error}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

function withDeadline<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<T>((resolve) => timer = setTimeout(() => resolve(fallback), ms));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** The little of the page's globals the rig's in-page functions touch (no DOM lib here). */
interface InPage {
  document: {
    body: { innerText: string } | null;
    querySelectorAll(selector: string): Iterable<{ textContent: string | null }>;
  };
}

async function openPage(browser: Browser, timeoutMs: number, url?: string): Promise<TestPage> {
  const raw = await browser.newPage();
  raw.setDefaultTimeout(timeoutMs);
  raw.setDefaultNavigationTimeout(Math.max(timeoutMs, 30_000));
  const consoleErrors: string[] = [];
  raw.on("console", (m) => {
    if (m.type() !== "error") return;
    const at = m.location();
    consoleErrors.push(
      `console.error: ${m.text()}${
        at.url ? ` (${at.url}${at.lineNumber === undefined ? "" : `:${at.lineNumber}`})` : ""
      }`,
    );
  });
  raw.on("pageerror", (e) => {
    consoleErrors.push(`uncaught: ${e instanceof Error ? e.message : String(e)}`);
  });

  /** Runs a wait; a time-out says what was awaited, where, and what the page showed. */
  const waiting = async <R>(what: string, ms: number, run: () => Promise<R>): Promise<R> => {
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof Error && error.name === "TimeoutError")) throw error;
      const body = await raw.evaluate(() =>
        (globalThis as unknown as InPage).document.body?.innerText ?? ""
      )
        .catch(() => "?");
      throw new Error(
        `timed out after ${ms} ms waiting for ${what} on ${raw.url()}\n` +
          `the page shows: ${JSON.stringify(body.slice(0, 800))}\n` +
          `console errors: ${JSON.stringify(consoleErrors)}`,
      );
    }
  };
  const ms = (o?: WaitOptions) => o?.timeoutMs ?? timeoutMs;

  const page: TestPage = {
    raw,
    consoleErrors,
    url: () => raw.url(),
    async goto(target) {
      await raw.goto(target, { waitUntil: "load" });
    },
    async waitFor(selector, o) {
      await waiting(`${selector}`, ms(o), () => raw.waitForSelector(selector, { timeout: ms(o) }));
    },
    async waitForText(selector, text, o) {
      const pattern = typeof text === "string"
        ? { s: text, re: undefined }
        : { s: undefined, re: [text.source, text.flags] };
      await waiting(`${selector} with text ${String(text)}`, ms(o), () =>
        raw.waitForFunction(
          (sel: string, p: { s?: string; re?: string[] }) => {
            const re = p.re ? new RegExp(p.re[0], p.re[1]) : undefined;
            const doc = (globalThis as unknown as InPage).document; // runs in the page
            return [...doc.querySelectorAll(sel)].some((e) => {
              const t = e.textContent ?? "";
              return re ? re.test(t) : t.includes(p.s!);
            });
          },
          { timeout: ms(o), polling: "mutation" },
          selector,
          pattern,
        ));
    },
    async click(selector, o) {
      await waiting(
        `${selector} to click`,
        ms(o),
        () => raw.locator(selector).setTimeout(ms(o)).click(),
      );
    },
    async type(selector, text, o) {
      await waiting(`${selector} to type into`, ms(o), async () => {
        const field = await raw.waitForSelector(selector, { visible: true, timeout: ms(o) });
        await field!.evaluate((e) => {
          (e as unknown as { value: string }).value = "";
        });
        await field!.type(text);
      });
    },
    async text(selector, o) {
      await page.waitFor(selector, o);
      return await raw.$eval(selector, (e) => e.textContent ?? "");
    },
    async texts(selector) {
      return await raw.$$eval(selector, (es) => es.map((e) => e.textContent ?? ""));
    },
    async screenshot(path, o) {
      await Deno.mkdir(dirname(path), { recursive: true });
      const png = await raw.screenshot({ type: "png", fullPage: o?.fullPage ?? false });
      await Deno.writeFile(path, png);
    },
  };
  if (url !== undefined) await page.goto(url);
  return page;
}
