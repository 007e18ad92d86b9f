/**
 * A fake GitHub for every test: a real HTTP server on 127.0.0.1 serving the REST endpoints (and
 * the GraphQL query) the-loop uses over a mutable {@linkcode World}, with ETags and 304s, `Link`
 * pagination, rate-limit headers, injectable faults, a record of every request, and signed
 * webhook deliveries.
 *
 * ```ts
 * await using gh = await FakeGitHub.start({ token: "t0k" });
 * const issue = gh.world.addIssue("octo/repo", { labels: ["the-loop: auto-execute"] });
 * gh.world.addComment("octo/repo", issue.number, "start", "alice");
 * gh.fault({ path: "/repos/octo/repo/issues", kind: "status", status: 502, times: 2 });
 * // … point the code under test at gh.url …
 * gh.requests; // every request: method, path, query, headers (no authorization), status
 * await gh.deliver(receiverUrl, { secret }); // the webhooks of every change above, signed, in order
 * ```
 *
 * For the demo (`the-loop demo`) it also serves real git repositories (`git: { root }`: smart
 * HTTP through `git http-backend`, see `git_http.ts`), takes a person's token (`users`: writes
 * made with it are that person's), closes and reopens items (`PATCH /repos/O/R/issues/N`), and
 * forwards every change as a signed webhook as it happens ({@linkcode FakeGitHub.forward}).
 *
 * @module
 */
import { type Fault, handle, type RecordedRequest, type ServerState } from "./server.ts";
import { sendWebhook, type WebhookOptions, type WebhookResult } from "./webhook.ts";
import type { GitHttpOptions } from "./git_http.ts";
import { type Change, World } from "./world.ts";

export type { Fault, FaultKind, RecordedRequest } from "./server.ts";
export { type GitHttpOptions, parseCgi, serveGit } from "./git_http.ts";
export {
  DEMO_FILES,
  DEMO_ITEM,
  DEMO_LABEL,
  DEMO_REPO,
  DEMO_USER,
  makeDemoRepository,
  seedDemoWorld,
} from "./demo_world.ts";
export { signature, type WebhookOptions, type WebhookResult } from "./webhook.ts";
export {
  type Change,
  type Item,
  type Json,
  type NewItem,
  publicView,
  type Repo,
  World,
} from "./world.ts";

/** Options of {@linkcode FakeGitHub.start}. */
export interface FakeGitHubOptions {
  /** When set, requests without `Authorization: Bearer <token>` get 401. */
  token?: string;
  /** The login writes are made as; default `the-loop-bot`. */
  actor?: string;
  /** The web host in `html_url`s; default `https://github.com`. */
  host?: string;
  /** The port on 127.0.0.1; default 0 (a free one). */
  port?: number;
  /** More tokens, each mapped to its user's login: writes made with one are that user's. */
  users?: Record<string, string>;
  /** Serve the bare repositories under `git.root` at `/<owner>/<repo>.git` (clone, fetch). */
  git?: GitHttpOptions;
}

/** What {@linkcode FakeGitHub.forward} answers: stop it (and wait for the delivery under way). */
export interface Forwarding {
  stop(): Promise<void>;
}

/** The fake GitHub server. */
export class FakeGitHub {
  readonly world: World;
  readonly #state: ServerState;
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  #delivered = 0;

  private constructor(state: ServerState, server: Deno.HttpServer<Deno.NetAddr>) {
    this.#state = state;
    this.world = state.world;
    this.#server = server;
  }

  /** Starts a server on 127.0.0.1 and a free port. */
  static start(opts: FakeGitHubOptions = {}): Promise<FakeGitHub> {
    const world = new World(opts.host);
    let url = "";
    const state: ServerState = {
      world,
      token: opts.token,
      requests: [],
      faults: [],
      rate: { limit: 5000, remaining: 5000, reset: Math.floor(Date.now() / 1000) + 3600 },
      baseUrl: () => url,
      actor: () => opts.actor ?? "the-loop-bot",
      users: new Map(Object.entries(opts.users ?? {})),
      git: opts.git,
    };
    return new Promise((resolve) => {
      const server = Deno.serve({
        hostname: "127.0.0.1",
        port: opts.port ?? 0,
        onListen: () => {},
      }, (req) => handle(state, req));
      url = `http://127.0.0.1:${server.addr.port}`;
      resolve(new FakeGitHub(state, server));
    });
  }

  /** The API's base URL, e.g. `http://127.0.0.1:41234` (GraphQL at `<url>/graphql`). */
  get url(): string {
    return this.#state.baseUrl();
  }

  /** Every request received, oldest first. */
  get requests(): readonly RecordedRequest[] {
    return this.#state.requests;
  }

  /** Forgets the recorded requests. */
  clearRequests(): void {
    this.#state.requests.length = 0;
  }

  /** The core rate limit the fake reports (`remaining` falls by one per non-304 answer). */
  get rateLimit(): { limit: number; remaining: number; reset: number } {
    return this.#state.rate;
  }

  /** Arms a fault for the next `times` (default 1) requests matching its path (and method). */
  fault(fault: Fault): void {
    this.#state.faults.push({ fault, left: fault.times ?? 1 });
  }

  /** Disarms every fault. */
  clearFaults(): void {
    this.#state.faults.length = 0;
  }

  /** POSTs a signed webhook delivery of `event` to `url` (the receiver under test). */
  webhook(
    url: string,
    event: string,
    payload: unknown,
    opts: WebhookOptions = {},
  ): Promise<WebhookResult> {
    return sendWebhook(url, event, payload, opts);
  }

  /**
   * POSTs the webhook deliveries of the world's changes not yet delivered (see
   * `world.changes`), signed with `opts.secret`, one at a time in order, each with a fresh
   * delivery id. Resolves to one result per delivery, with the change it carried.
   */
  async deliver(
    url: string,
    opts: Omit<WebhookOptions, "deliveryId"> = {},
  ): Promise<(WebhookResult & { change: Change })[]> {
    const out: (WebhookResult & { change: Change })[] = [];
    while (this.#delivered < this.world.changes.length) {
      const change = this.world.changes[this.#delivered++];
      out.push({ ...(await sendWebhook(url, change.event, change.payload, opts)), change });
    }
    return out;
  }

  /**
   * Delivers the changes not yet delivered now, then each later change as it is made (as
   * {@linkcode FakeGitHub.deliver}: signed, one at a time, in order); `onResult` hears of each
   * delivery, `onError` of one that could not be sent (the receiver down: it is not retried).
   */
  forward(
    url: string,
    opts: Omit<WebhookOptions, "deliveryId"> & {
      onResult?: (r: WebhookResult & { change: Change }) => void;
      onError?: (error: unknown) => void;
    } = {},
  ): Forwarding {
    let chain = Promise.resolve();
    let stopped = false;
    const pump = () => {
      chain = chain.then(async () => {
        if (stopped) return;
        for (const r of await this.deliver(url, opts)) opts.onResult?.(r);
      }).catch((e) => opts.onError?.(e));
    };
    const off = this.world.onChange(pump);
    pump();
    return {
      stop: async () => {
        stopped = true;
        off();
        await chain;
      },
    };
  }

  /** Marks every change so far as delivered (without sending it). */
  skipChanges(): void {
    this.#delivered = this.world.changes.length;
  }

  /** Stops the server. */
  async close(): Promise<void> {
    await this.#server.shutdown();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
