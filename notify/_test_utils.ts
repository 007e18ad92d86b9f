/**
 * Test helpers for the notifier: a real loopback HTTP endpoint that records what it is sent
 * and answers as the test says (a status, or a hang the test releases), and channels built as
 * the config resolves them.
 *
 * @module
 */
import type { CommandChannel, SlackChannel, WebhookChannel } from "../config/mod.ts";
import type { Envelope } from "./envelope.ts";

/** One request the endpoint took. */
export interface Taken {
  method: string;
  path: string;
  headers: Headers;
  body: Uint8Array;
  text: string;
}

/** A loopback endpoint: what it took, and how it answers. */
export interface Endpoint {
  url: string;
  taken: Taken[];
  /** The status of each answer (changeable between requests). */
  status: number;
  /** Statuses for the next requests, in arrival order, before `status` applies. */
  statuses: number[];
  /**
   * While set, each request waits on this promise before it is answered (a hanging channel);
   * `arrived` resolves at each request's arrival.
   */
  hold?: Promise<void>;
  /** Resolves when the next request arrives. */
  arrival(): Promise<Taken>;
  close(): Promise<void>;
}

/** Starts a loopback endpoint on 127.0.0.1 (a real `Deno.serve`). */
export function endpoint(status = 200): Endpoint {
  const waiters: ((t: Taken) => void)[] = [];
  const ep: Endpoint = {
    url: "",
    taken: [],
    status,
    statuses: [],
    arrival: () => new Promise((resolve) => waiters.push(resolve)),
    close: async () => {
      await server.shutdown();
    },
  };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      const body = new Uint8Array(await req.arrayBuffer());
      const taken: Taken = {
        method: req.method,
        path: new URL(req.url).pathname + new URL(req.url).search,
        headers: req.headers,
        body,
        text: new TextDecoder().decode(body),
      };
      ep.taken.push(taken);
      const answer = ep.statuses.shift() ?? ep.status;
      for (const w of waiters.splice(0)) w(taken);
      if (ep.hold) await ep.hold;
      const silent = answer === 204 || answer === 304;
      return new Response(silent ? null : "answer", { status: answer });
    },
  );
  ep.url = `http://127.0.0.1:${server.addr.port}`;
  return ep;
}

/** A webhook channel as resolved. */
export function webhookChannel(over: Partial<WebhookChannel> & { url: string }): WebhookChannel {
  return { name: "hook", type: "webhook", enabled: true, timeoutSeconds: 5, ...over };
}

/** A slack channel as resolved. */
export function slackChannel(over: Partial<SlackChannel> = {}): SlackChannel {
  return {
    name: "me-slack",
    type: "slack",
    enabled: true,
    timeoutSeconds: 5,
    urlEnv: "THE_LOOP_SLACK_WEBHOOK_URL",
    via: "api",
    config: { "channel-list": [] },
    ...over,
  };
}

/** A command channel as resolved. */
export function commandChannel(over: Partial<CommandChannel> & { command: string[] }) {
  return {
    name: "cmd",
    type: "command",
    enabled: true,
    timeoutSeconds: 5,
    env: [],
    ...over,
  } satisfies CommandChannel;
}

/** A sample envelope. */
export const ENVELOPE: Envelope = {
  event: "gate-waiting",
  work_item: "github:octo/repo#12",
  summary: "github:octo/repo#12: waits at review (pdlc) for a verdict",
  url: "https://github.com/octo/repo/issues/12",
  ts: "2026-07-22T10:00:00.000Z",
  details: { loop: "pdlc", node: "review" },
};

/** The hex HMAC-SHA256 of `body` with `secret`, computed apart from the code under test. */
export async function hmacHex(secret: string, body: Uint8Array): Promise<string> {
  const { createHmac } = await import("node:crypto");
  return createHmac("sha256", secret).update(body).digest("hex");
}
