/**
 * The notifier: it watches the event log's records go by ({@linkcode Notifier.observe}, or a
 * sink wrapped by {@linkcode Notifier.tap}), turns those that are notifications into envelopes
 * (`from_events.ts`), routes each by `notifications.events` to the roles' collaborators and their
 * enabled channels, and sends them — never in the caller's way.
 *
 * - `observe` is synchronous and never throws: it only enqueues. Dispatch never waits on a send.
 * - One queue per channel, one send at a time in it: a channel that hangs holds back only itself.
 * - Each send has a time budget (the channel's `timeoutSeconds`, 5 s) and up to 3 retries with
 *   backoff (1 s, 2 s, 4 s); every attempt's outcome is a `notify.sent` or `notify.failed` event.
 * - A queue holds at most `backlog` envelopes (256) waiting: past that the oldest is dropped,
 *   with `notify.dropped` (reason `backlog-full`).
 * - A channel reached through two roles gets an envelope once. A slack channel's `channel-list`
 *   entries are sent (and retried) one by one, in its queue.
 *
 * ```ts
 * const notifier = new Notifier({ config, events: log, env: (n) => Deno.env.get(n) });
 * const sink = notifier.tap(log); // what the daemon emits through; notifications follow
 * …
 * await notifier.close(5_000); // at shutdown: wait for the queues a while, then abort
 * ```
 *
 * @module
 */
import { delay, settlesWithin, withDeadline } from "../async/mod.ts";
import type { Channel, CliConfig, EnvReader } from "../config/mod.ts";
import type { EventSink, PendingEvent } from "../events/mod.ts";
import { messageOf } from "../errors.ts";
import { type SendResult, sendTo } from "./channels.ts";
import { type Envelope, TEST_EVENT } from "./envelope.ts";
import { envelopeOf, NOTIFYING_TYPES } from "./from_events.ts";

/** The part of the config a notifier reads. */
export type NotifierConfig = Pick<CliConfig, "collaborators" | "notifications">;

/** Options of {@linkcode Notifier}. */
export interface NotifierOptions {
  /** Who is notified of what, on which channels (hot-swapped by {@linkcode Notifier.reconfigure}). */
  config: NotifierConfig;
  /** Where `notify.sent`, `notify.failed` and `notify.dropped` go. */
  events: EventSink;
  /** Reads the channels' variables at send time. */
  env: EnvReader;
  /** The clock (envelopes' `ts`, the `ms` of a send). Default `() => new Date()`. */
  now?: () => Date;
  /** The waits before each retry; its length is the number of retries. Default `[1000, 2000, 4000]`. */
  retryDelaysMs?: readonly number[];
  /** The most envelopes waiting per channel; default 256. */
  backlog?: number;
  /** One send's budget for every channel; default each channel's `timeoutSeconds` (5 s). */
  timeoutMs?: number;
}

/** One channel's answer to `notify test`. */
export interface TestResult extends SendResult {
  channel: string;
  type: Channel["type"];
  /** How long the send took, in milliseconds. */
  ms: number;
}

/** A configured channel and whose it is. */
export interface ChannelEntry {
  /** The collaborator's handle. */
  handle: string;
  channel: Channel;
}

/** Every channel of `config`, in order, enabled or not. */
export function channelsOf(config: NotifierConfig): ChannelEntry[] {
  return config.collaborators.flatMap((c) =>
    c.notifications.channels.map((channel) => ({ handle: c.handle, channel }))
  );
}

/**
 * What is sent and retried on its own: a slack channel with a `channel-list`, once per listed
 * channel (a retry never posts again where a post went through); any other channel, whole.
 */
function partsOf(channel: Channel): Channel[] {
  if (channel.type !== "slack" || channel.config["channel-list"].length < 2) return [channel];
  return channel.config["channel-list"].map((target) => ({
    ...channel,
    config: { ...channel.config, "channel-list": [target] },
  }));
}

interface Item {
  channel: Channel;
  envelope: Envelope;
}

interface Queue {
  items: Item[];
  /** The drain running now, if any. */
  draining?: Promise<void>;
}

/** The event types that raise a notification (a set: looked up at every emit). */
const RAISING: ReadonlySet<string> = new Set(NOTIFYING_TYPES);

/** Whether `config` routes any event to a role some enabled recipient holds with a channel. */
function activeOf(config: NotifierConfig): boolean {
  try {
    if (!config.notifications.enabled) return false;
    const roles = new Set(Object.values(config.notifications.events ?? {}).flat());
    return (config.collaborators ?? []).some((c) =>
      c.notifications?.enabled !== false &&
      (c.notifications?.channels ?? []).some((ch) => ch.enabled !== false) &&
      (c.roles ?? []).some((r) => roles.has(r))
    );
  } catch {
    return false; // a config the notifier cannot read routes nothing
  }
}

/** The delivery of notifications; see the module doc. */
export class Notifier {
  #config: NotifierConfig;
  /** Whether any event is routed to a role with a channel (else nothing is looked at). */
  #active = false;
  readonly #events: EventSink;
  readonly #env: EnvReader;
  readonly #now: () => Date;
  readonly #retries: readonly number[];
  readonly #backlog: number;
  readonly #timeoutMs?: number;
  readonly #queues = new Map<string, Queue>();
  readonly #stop = new AbortController();
  #closed = false;

  constructor(opts: NotifierOptions) {
    this.#config = opts.config;
    this.#active = activeOf(opts.config);
    this.#events = opts.events;
    this.#env = opts.env;
    this.#now = opts.now ?? (() => new Date());
    this.#retries = opts.retryDelaysMs ?? [1000, 2000, 4000];
    this.#backlog = Math.max(1, opts.backlog ?? 256);
    this.#timeoutMs = opts.timeoutMs;
  }

  /** Later envelopes are routed by `config` (hot reload); queued ones go out as they were. */
  reconfigure(config: NotifierConfig): void {
    this.#config = config;
    this.#active = activeOf(config);
  }

  /**
   * Looks at one event-log record: when it is a notification with someone to tell, enqueues it
   * on each of their channels. Synchronous; never throws; sends nothing itself.
   */
  observe(type: string, fields: Record<string, unknown> = {}): void {
    try {
      // every event the daemon emits passes here: most are no notification at all
      if (this.#closed || !this.#active || !RAISING.has(type)) return;
      const envelope = envelopeOf(type, fields, this.#now());
      if (envelope === undefined || envelope.event === TEST_EVENT) return;
      for (const channel of this.#routed(this.#config.notifications.events[envelope.event])) {
        for (const part of partsOf(channel)) this.#enqueue({ channel: part, envelope });
      }
    } catch { /* a notifier problem never reaches the emitter */ }
  }

  /** A sink that forwards every record to `inner`, then {@linkcode observe}s it. */
  tap(inner: EventSink): EventSink {
    const observe = (events: readonly PendingEvent[]) => {
      for (const e of events) this.observe(e.event, e.fields);
    };
    const sink: EventSink = {
      emit: (event, fields, opts) => {
        inner.emit(event, fields, opts);
        observe([{ event, fields }]);
      },
    };
    if (inner.emitBatch) {
      sink.emitBatch = (events) => {
        inner.emitBatch!(events);
        observe(events);
      };
    }
    return sink;
  }

  /**
   * Sends a `test` envelope on every enabled channel (or only on the one named, enabled or
   * not), once each and all at once, bypassing the routing; resolves to each channel's answer.
   * Throws when `name` names no channel.
   */
  async test(name?: string): Promise<TestResult[]> {
    const all = channelsOf(this.#config);
    const picked = name === undefined
      ? all.filter((e) => e.channel.enabled)
      : all.filter((e) => e.channel.name === name);
    if (name !== undefined && picked.length === 0) {
      throw new Error(`no channel is named "${name}"`);
    }
    const envelope: Envelope = {
      event: TEST_EVENT,
      work_item: null,
      summary: "the-loop notify test: this channel is reached",
      url: null,
      ts: this.#now().toISOString(),
      details: {},
    };
    return await Promise.all(picked.map(async ({ channel }) => {
      const started = this.#now().getTime();
      const result = await this.#attempt(channel, envelope);
      const ms = this.#now().getTime() - started;
      this.#report({ channel, envelope }, result, { attempts: 1, willRetry: false, ms });
      return { channel: channel.name, type: channel.type, ms, ...result };
    }));
  }

  /** Resolves once every queue is empty and no send is under way. */
  async idle(): Promise<void> {
    for (;;) {
      const busy = [...this.#queues.values()].flatMap((q) => q.draining ? [q.draining] : []);
      if (busy.length === 0) return;
      await Promise.all(busy);
    }
  }

  /**
   * Stops accepting envelopes, waits at most `timeoutMs` for the queues to empty, then aborts
   * the sends under way (and drops what still waits, with `notify.dropped`, reason `closed`).
   */
  async close(timeoutMs: number): Promise<void> {
    this.#closed = true;
    if (await settlesWithin(this.idle(), timeoutMs)) return;
    this.#stop.abort(new Error("the notifier was closed"));
    await this.idle();
  }

  /** The enabled channels of the enabled collaborators holding one of `roles`, each once. */
  #routed(roles: readonly string[] | undefined): Channel[] {
    if (!roles || roles.length === 0) return [];
    const wanted = new Set(roles);
    const out = new Map<string, Channel>();
    for (const c of this.#config.collaborators) {
      if (!c.notifications.enabled || !c.roles.some((r) => wanted.has(r))) continue;
      for (const ch of c.notifications.channels) {
        if (ch.enabled && !out.has(ch.name)) out.set(ch.name, ch);
      }
    }
    return [...out.values()];
  }

  #enqueue(item: Item): void {
    const name = item.channel.name;
    let q = this.#queues.get(name);
    if (!q) this.#queues.set(name, q = { items: [] });
    if (q.items.length >= this.#backlog) this.#drop(q.items.shift()!, "backlog-full");
    q.items.push(item);
    if (!q.draining) this.#start(q);
  }

  #start(q: Queue): void {
    // started after the emitter's synchronous step: the send is never on its stack
    q.draining = Promise.resolve().then(() => this.#drain(q)).finally(() => {
      q.draining = undefined;
      if (q.items.length > 0) this.#start(q); // one came in as the drain ended
    });
  }

  async #drain(q: Queue): Promise<void> {
    for (let item = q.items.shift(); item; item = q.items.shift()) {
      if (this.#stop.signal.aborted) {
        this.#drop(item, "closed");
        continue;
      }
      await this.#deliver(item);
    }
  }

  /** Sends one envelope, with its retries; says each attempt's outcome. */
  async #deliver(item: Item): Promise<void> {
    const started = this.#now().getTime();
    for (let attempt = 1;; attempt++) {
      const result = await this.#attempt(item.channel, item.envelope);
      const willRetry = !result.ok && attempt <= this.#retries.length &&
        !this.#stop.signal.aborted;
      const ms = this.#now().getTime() - started;
      this.#report(item, result, { attempts: attempt, willRetry, ms });
      if (!willRetry) return;
      try {
        await delay(this.#retries[attempt - 1], { signal: this.#stop.signal });
      } catch {
        return; // closed while waiting to retry
      }
    }
  }

  /** One send under its budget; a timeout or an abort is a failed result. */
  async #attempt(channel: Channel, envelope: Envelope): Promise<SendResult> {
    const ms = this.#timeoutMs ?? channel.timeoutSeconds * 1000;
    try {
      return await withDeadline(
        (signal) => sendTo(channel, envelope, { env: this.#env, signal }),
        {
          ms,
          signal: this.#stop.signal,
          onTimeout: () => new Error(`no answer within ${ms} ms (timeoutSeconds)`),
        },
      );
    } catch (error) {
      return { ok: false, error: messageOf(error) };
    }
  }

  #report(
    { channel, envelope }: Item,
    result: SendResult,
    at: { attempts: number; willRetry: boolean; ms: number },
  ): void {
    const head = {
      channel: channel.name,
      type: channel.type,
      notification: envelope.event,
      work_item: envelope.work_item,
    };
    const outcome = {
      ...(result.status !== undefined ? { status: result.status } : {}),
      ...(result.exitCode !== undefined ? { exit_code: result.exitCode } : {}),
    };
    if (result.ok) {
      this.#events.emit("notify.sent", { ...head, ...outcome, attempts: at.attempts, ms: at.ms });
    } else {
      this.#events.emit("notify.failed", {
        ...head,
        error: result.error ?? "the send failed",
        ...outcome,
        attempts: at.attempts,
        will_retry: at.willRetry,
      });
    }
  }

  #drop({ channel, envelope }: Item, reason: "backlog-full" | "closed"): void {
    this.#events.emit("notify.dropped", {
      channel: channel.name,
      notification: envelope.event,
      work_item: envelope.work_item,
      reason,
    });
  }
}
