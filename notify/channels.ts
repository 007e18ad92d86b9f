/**
 * The three senders, one per channel type; {@linkcode sendTo} picks one. A send is one attempt
 * (the notifier retries), stops when `signal` is aborted (the notifier's timeout or its close),
 * and resolves to what came back — it never throws.
 *
 * | type      | what is sent                                                                      | ok when      |
 * | --------- | --------------------------------------------------------------------------------- | ------------ |
 * | `slack`   | POST `{"text": "<summary> <url>"}` to the URL in `urlEnv` (one per `channel-list` entry, with `channel`) | every 2xx    |
 * | `webhook` | POST the envelope as JSON; `X-The-Loop-Signature-256: sha256=<hex>` with `secretEnv` | 2xx          |
 * | `command` | the argv run (no shell), the envelope as JSON on stdin, a minimal environment     | exit 0       |
 *
 * Secrets stay out of every result: a URL is shown as its scheme and host only (a webhook URL
 * may hold a token in its path or query), a variable by its name, never its value.
 *
 * @module
 */
import type {
  Channel,
  CommandChannel,
  EnvReader,
  SlackChannel,
  WebhookChannel,
} from "../config/mod.ts";
import { messageOf } from "../errors.ts";
import { VERSION } from "../version.ts";
import type { Envelope } from "./envelope.ts";

/** What one send came back with. */
export interface SendResult {
  ok: boolean;
  /** The HTTP status (slack, webhook): the last answer, or the first that was not a 2xx. */
  status?: number;
  /** The command's exit code (command). */
  exitCode?: number;
  /** Why it failed: never a URL's path or query, never a secret. */
  error?: string;
}

/** What a send is handed besides the channel and the envelope. */
export interface SendOptions {
  /** Reads the channel's variables (`urlEnv`, `secretEnv`, a command's `env`) at send time. */
  env: EnvReader;
  /** Aborted: the send stops (a fetch is cancelled, a command killed). */
  signal?: AbortSignal;
}

/** The header a webhook channel signs its body in. */
export const SIGNATURE_HEADER = "X-The-Loop-Signature-256";

/** The most of a command's stdout and of its stderr kept (the rest is read and dropped). */
export const OUTPUT_CAP_BYTES = 4096;

const USER_AGENT = `the-loop/${VERSION}`;

/** `sha256=<hex>`: the HMAC-SHA256 of `body` with `secret`, as {@linkcode SIGNATURE_HEADER} carries it. */
export async function signBody(body: Uint8Array, secret: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, body as BufferSource));
  return "sha256=" + Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A URL as errors may show it: its scheme and host (`https://hooks.slack.com`). */
export function shownUrl(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(an invalid URL)";
  }
}

/** `text` with every occurrence of the secrets replaced (a fetch error may quote its URL). */
function withoutSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.replaceAll(s, "[redacted]");
  return out;
}

/** The variable's value, or the error saying it is not set (naming the variable, never a value). */
function fromEnv(env: EnvReader, name: string, what: string): string | { error: string } {
  const value = env(name);
  if (value === undefined || value.trim() === "") {
    return { error: `${name} is not set: export ${what}` };
  }
  return value.trim();
}

/** One POST; its status, or the error (the URL shown as its origin only). */
async function post(
  url: string,
  body: Uint8Array,
  headers: Record<string, string>,
  opts: SendOptions & { secrets: string[] },
): Promise<SendResult> {
  const where = shownUrl(url);
  try {
    const res = await fetch(url, {
      method: "POST",
      body: body as BodyInit,
      headers: { "content-type": "application/json", "user-agent": USER_AGENT, ...headers },
      signal: opts.signal,
      redirect: "manual", // a redirect could carry the body elsewhere
    });
    await res.body?.cancel().catch(() => {});
    const ok = res.status >= 200 && res.status < 300;
    return ok ? { ok, status: res.status } : {
      ok,
      status: res.status,
      error: `POST to ${where} answered HTTP ${res.status}`,
    };
  } catch (error) {
    const why = opts.signal?.aborted ? messageOf(opts.signal.reason) : messageOf(error);
    const secrets = [url, url.replace(/\/$/, ""), ...opts.secrets];
    try {
      const u = new URL(url);
      if (u.pathname.length > 1) secrets.push(u.pathname + u.search);
      if (u.search) secrets.push(u.search);
    } catch { /* shownUrl said so */ }
    return { ok: false, error: `POST to ${where} failed: ${withoutSecrets(why, secrets)}` };
  }
}

async function sendSlack(
  channel: SlackChannel,
  envelope: Envelope,
  opts: SendOptions,
): Promise<SendResult> {
  const url = fromEnv(opts.env, channel.urlEnv, "the Slack incoming-webhook URL");
  if (typeof url !== "string") return { ok: false, ...url };
  const text = envelope.url ? `${envelope.summary} ${envelope.url}` : envelope.summary;
  const targets: (string | undefined)[] = channel.config["channel-list"].length > 0
    ? channel.config["channel-list"]
    : [undefined];
  let last: SendResult = { ok: true };
  for (const target of targets) {
    const payload = target === undefined ? { text } : { text, channel: target };
    const body = new TextEncoder().encode(JSON.stringify(payload));
    last = await post(url, body, {}, { ...opts, secrets: [] });
    if (!last.ok) {
      return target === undefined ? last : { ...last, error: `${target}: ${last.error}` };
    }
  }
  return last;
}

async function sendWebhook(
  channel: WebhookChannel,
  envelope: Envelope,
  opts: SendOptions,
): Promise<SendResult> {
  const body = new TextEncoder().encode(JSON.stringify(envelope));
  const headers: Record<string, string> = {};
  const secrets: string[] = [];
  if (channel.secretEnv !== undefined) {
    const secret = fromEnv(opts.env, channel.secretEnv, "the webhook channel's signing secret");
    if (typeof secret !== "string") return { ok: false, ...secret };
    headers[SIGNATURE_HEADER] = await signBody(body, secret);
    secrets.push(secret);
  }
  return await post(channel.url, body, headers, { ...opts, secrets });
}

/** Reads a stream to its end (or until `signal` aborts), keeping at most `cap` bytes. */
async function capped(
  stream: ReadableStream<Uint8Array>,
  cap: number,
  signal?: AbortSignal,
): Promise<string> {
  const reader = stream.getReader();
  // a killed command's own children may hold the pipe open: stop reading at the abort
  const stop = () => reader.cancel().catch(() => {});
  if (signal?.aborted) stop();
  signal?.addEventListener("abort", stop, { once: true });
  const kept: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size < cap) kept.push(value.subarray(0, cap - size));
      size += value.length;
    }
  } catch {
    /* cancelled */
  } finally {
    signal?.removeEventListener("abort", stop);
  }
  const bytes = new Uint8Array(kept.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of kept) bytes.set(c, (at += c.length) - c.length);
  const text = new TextDecoder().decode(bytes);
  return size > cap ? text + "…" : text;
}

/** The command's whole environment: PATH, HOME, what `env` lists, and the THE_LOOP_* names. */
function commandEnv(channel: CommandChannel, envelope: Envelope, env: EnvReader) {
  const out: Record<string, string> = {};
  for (const name of channel.env) {
    const v = env(name);
    if (v !== undefined) out[name] = v;
  }
  out.PATH = env("PATH") ?? "/usr/local/bin:/usr/bin:/bin";
  const home = env("HOME");
  if (home !== undefined) out.HOME = home;
  out.THE_LOOP_NOTIFY_EVENT = envelope.event;
  out.THE_LOOP_CHANNEL = channel.name;
  out.THE_LOOP_WORK_ITEM = envelope.work_item ?? "";
  return out;
}

async function sendCommand(
  channel: CommandChannel,
  envelope: Envelope,
  opts: SendOptions,
): Promise<SendResult> {
  const [program, ...args] = channel.command;
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(program, {
      args,
      env: commandEnv(channel, envelope, opts.env),
      clearEnv: true,
      ...(channel.cwd ? { cwd: channel.cwd } : {}),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    return { ok: false, error: `cannot run ${program}: ${messageOf(error)}` };
  }
  const kill = () => {
    try {
      child.kill("SIGKILL");
    } catch { /* it ended already */ }
  };
  if (opts.signal?.aborted) kill();
  opts.signal?.addEventListener("abort", kill, { once: true });
  try {
    const writer = child.stdin.getWriter();
    const fed = writer.write(new TextEncoder().encode(JSON.stringify(envelope)))
      .then(() => writer.close())
      .catch(() => {}); // a command that does not read its stdin may close it first
    const [, stderr, status] = await Promise.all([
      capped(child.stdout, OUTPUT_CAP_BYTES, opts.signal),
      capped(child.stderr, OUTPUT_CAP_BYTES, opts.signal),
      child.status,
      fed,
    ]);
    if (opts.signal?.aborted) {
      return { ok: false, error: `${program} was killed: ${messageOf(opts.signal.reason)}` };
    }
    if (status.code === 0) return { ok: true, exitCode: 0 };
    const said = stderr.trim().split("\n")[0] ?? "";
    return {
      ok: false,
      exitCode: status.code,
      error: `${program} exited ${status.code}` + (said ? `: ${said}` : ""),
    };
  } finally {
    opts.signal?.removeEventListener("abort", kill);
  }
}

/** Sends `envelope` on `channel` once, with the sender its type names. Never throws. */
export async function sendTo(
  channel: Channel,
  envelope: Envelope,
  opts: SendOptions,
): Promise<SendResult> {
  try {
    switch (channel.type) {
      case "slack":
        return await sendSlack(channel, envelope, opts);
      case "webhook":
        return await sendWebhook(channel, envelope, opts);
      case "command":
        return await sendCommand(channel, envelope, opts);
    }
  } catch (error) {
    return { ok: false, error: `the ${channel.type} send failed: ${messageOf(error)}` };
  }
}
