/**
 * The intake worker: the receiver's HTTP server, body cap, signature check and JSON check run
 * here, on a thread of their own, so answering a delivery never waits behind routing (and
 * routing never waits behind parsing HTTP). An accepted delivery's text is sent to the receiver,
 * which parses it again and routes it. The handler's own records are written here to the same
 * event log (or, when the receiver's sink is not a log file, sent along). What goes back to the
 * receiver is batched, and so are the records written to the log: at the end of the tick after a
 * quiet spell, and under load at most once every `PACE_MS` milliseconds, however many
 * requests were answered meanwhile. Answers never wait for either; routing waits at most that
 * long, and the receiver's thread is woken once per batch instead of once per request.
 *
 * Started by `_intake.ts`; the protocol is `_intake_protocol.ts`.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { EventLog, type EventSink } from "../events/mod.ts";
import { pacer } from "../async/mod.ts";
import { messageOf } from "../errors.ts";
import { createAnswerer } from "./handler.ts";
import {
  type IntakeInit,
  type IntakeItem,
  type IntakeReply,
  type IntakeRequest,
  takeCredit,
} from "./_intake_protocol.ts";
import { IntakeInbox } from "./_intake_inbox.ts";
import { WebhookServer } from "./server.ts";
import { SignatureVerifier } from "./signature.ts";

/** Under load, the least time (ms) between two batches sent to the receiver or written to the log. */
const PACE_MS = 1;

let outbox: IntakeItem[] = [];
const outboxPace = pacer(flush, { intervalMs: PACE_MS });

function reply(message: IntakeReply): void {
  self.postMessage(message);
}

function send(item: IntakeItem): void {
  outboxPace.schedule();
  outbox.push(item);
}

/** Sends the outbox now (paced, or at stop); a scheduled send is then dropped. */
function flush(): void {
  outboxPace.ran();
  events.flush?.(); // a delivery's `webhook.received` is written before it can be routed
  if (outbox.length === 0) return;
  const items = outbox;
  outbox = [];
  reply({ t: "batch", items });
}

/** Sends the handler's events to the receiver's sink. */
const forward: EventSink = {
  emit(event, fields, opts) {
    send({ t: "event", event, fields, level: opts?.level });
  },
};

/** Where the handler's events go: the log file itself, when the receiver writes to one. */
let events: EventSink & { flush?(): void } = forward;

async function start(init: IntakeInit): Promise<WebhookServer> {
  const credits = new Int32Array(init.credits);
  if (init.log) {
    events = new EventLog({
      ...init.log,
      paceMs: PACE_MS,
      onWriteError: (why) => (logFailure = why),
    });
  }
  const verifier = init.secret ? await SignatureVerifier.create(init.secret) : undefined;
  // the durable inbox: a delivery is on disk before its 202 (`_intake_inbox.ts`)
  let broken = false;
  if (init.route && init.inbox) {
    try {
      inbox = IntakeInbox.open({ ...init.inbox, credits, bounds: init, send, events });
    } catch (error) {
      // an inbox folder that cannot be made or read (a read-only disk): every delivery is
      // answered 503 until a restart finds it writable — never a 202 that is not on disk
      broken = true;
      events.emit("webhook.inbox_failed", {
        dir: init.inbox.dir,
        error: messageOf(error),
      }, { level: "error" });
    }
  }
  const handler = createAnswerer({
    path: init.path,
    verifier,
    events,
    maxBodyBytes: init.maxBodyBytes,
    health: () => {
      const reasons = logFailure === undefined || degraded.some((r) => r.includes(logFailure!))
        ? [...degraded]
        : [...degraded, `the event log cannot be written: ${logFailure}`];
      if (broken) reasons.push(`the webhook inbox cannot be opened in ${init.inbox!.dir}`);
      const inboxFailure = inbox?.failure;
      if (inboxFailure) reasons.push(`the webhook inbox cannot be written: ${inboxFailure}`);
      return reasons;
    },
    accept: (event, body) => {
      if (closed) return false; // stopped: nothing more is taken (503; it can be redelivered)
      if (!init.route) return true;
      if (inbox) return inbox.accept(event, body);
      if (broken) return "inbox-failed";
      if (!takeCredit(credits, body.bytes, init)) return false;
      const { ghEvent, deliveryId } = event;
      send({ t: "delivery", ghEvent, deliveryId, text: body.text, bytes: body.bytes });
      return true;
    },
  });
  return await WebhookServer.start({
    hostname: init.hostname,
    port: init.port,
    handler,
    maxBodyBytes: init.maxBodyBytes,
    headersTimeoutMs: init.headersTimeoutMs,
    maxConnections: init.maxConnections,
  });
}

let server: WebhookServer | undefined;
let inbox: IntakeInbox | undefined;
let closed = false;
/** The daemon's degraded reasons (sent by the receiver), and this thread's own log failure. */
let degraded: string[] = [];
let logFailure: string | undefined;

self.onmessage = async (e: MessageEvent<IntakeRequest>) => {
  const message = e.data;
  if (message.t === "init") {
    try {
      server = await start(message.init);
      reply({ t: "listening", hostname: server.addr.hostname, port: server.addr.port });
      inbox?.start(); // the replays go after "listening": the receiver holds the thread by then
    } catch (error) {
      const err = error instanceof Error ? error : new Error(String(error));
      reply({ t: "failed", name: err.name, message: err.message });
    }
  } else if (message.t === "settled") {
    inbox?.settled(message.seqs);
  } else if (message.t === "health") {
    degraded = message.reasons;
  } else if (message.t === "stop") {
    const requestsFinished = server ? await server.shutdown({ graceMs: message.graceMs }) : true;
    closed = true; // a request still running past the grace time is refused, not lost
    flush();
    reply({ t: "stopped", requestsFinished });
  } else if (message.t === "close") {
    // after the receiver's last routing ended: its settled marks came before this
    inbox?.close();
    flush();
    if (events instanceof EventLog) events.close();
    reply({ t: "closed" });
  }
};
