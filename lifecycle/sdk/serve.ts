/**
 * The server half of a remote (`url:`) hook: JSON-RPC 2.0 over HTTP POST, method = the point,
 * params = the context, result = `null` or the decisions. {@linkcode handleRequest} is the
 * transport-free core; {@linkcode serveHooks} wraps it in `Deno.serve`.
 *
 * Nothing here touches a Deno API until `serveHooks` is called.
 *
 * @module
 */
import {
  applyAnswer,
  ContextError,
  decisionNames,
  DecisionTypeError,
  makeContext,
} from "./contract.ts";
import type { LifecycleHooks } from "./hooks.ts";
import { readCapped } from "./read_capped.ts";
import { isPointName, POINT_NAMES, type PointName } from "./points.ts";

/** The JSON-RPC error codes a hook server answers with. */
export const RPC_ERRORS = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  /** The hook method threw, or answered something the-loop would refuse. */
  HOOK_FAILED: -32000,
} as const;

type Id = string | number | null;
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const failure = (id: Id, code: number, message: string): string =>
  JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } });

/**
 * Answers one JSON-RPC 2.0 request body with the response body, or `null` for a notification
 * (a request without `id`), which is run but not answered. Batches are refused with -32600.
 * Never rejects: every failure is a JSON-RPC error object.
 */
export async function handleRequest(hooks: LifecycleHooks, body: string): Promise<string | null> {
  let msg: unknown;
  try {
    msg = JSON.parse(body);
  } catch (e) {
    return failure(null, RPC_ERRORS.PARSE_ERROR, `parse error: ${(e as Error).message}`);
  }
  const invalid = (id: Id, why: string) =>
    failure(id, RPC_ERRORS.INVALID_REQUEST, `invalid request: ${why}`);
  if (Array.isArray(msg)) {
    return invalid(null, "batch requests are not supported; send one call per request");
  }
  if (!isObject(msg)) return invalid(null, "expected a JSON-RPC 2.0 request object");
  const notification = !Object.hasOwn(msg, "id");
  const rawId = msg.id;
  if (
    !notification && !(typeof rawId === "string" || typeof rawId === "number" || rawId === null)
  ) {
    return invalid(null, "id must be a string, a number or null");
  }
  const id = (notification ? null : rawId) as Id;
  if (msg.jsonrpc !== "2.0") return invalid(id, 'jsonrpc must be "2.0"');
  if (typeof msg.method !== "string" || msg.method === "") {
    return invalid(id, "method must be a point name");
  }
  if (msg.params !== undefined && !isObject(msg.params)) {
    return invalid(id, "params must be an object (the context, by name)");
  }
  const reply = (text: string) => (notification ? null : text);
  const method = msg.method;
  if (!isPointName(method)) {
    return reply(failure(
      id,
      RPC_ERRORS.METHOD_NOT_FOUND,
      `method not found: "${method}" is not a lifecycle point (points: ${POINT_NAMES.join(", ")})`,
    ));
  }
  const result = await call(hooks, method, (msg.params ?? {}) as Record<string, unknown>);
  if ("error" in result) return reply(failure(id, result.error.code, result.error.message));
  return reply(JSON.stringify({ jsonrpc: "2.0", id, result: result.result }));
}

type Outcome =
  | { result: Record<string, unknown> | null }
  | { error: { code: number; message: string } };

async function call(
  hooks: LifecycleHooks,
  point: PointName,
  params: Record<string, unknown>,
): Promise<Outcome> {
  let ctx;
  try {
    // deno-lint-ignore no-explicit-any
    ctx = makeContext(point, params as any, { unknownKeys: "ignore" });
  } catch (e) {
    if (!(e instanceof ContextError)) throw e;
    return { error: { code: RPC_ERRORS.INVALID_PARAMS, message: `invalid params: ${e.message}` } };
  }
  const pristine = structuredClone(ctx);
  let answer: unknown;
  try {
    // deno-lint-ignore no-explicit-any
    answer = await (hooks[point] as (c: any) => unknown).call(hooks, ctx);
  } catch (e) {
    return {
      error: { code: RPC_ERRORS.HOOK_FAILED, message: e instanceof Error ? e.message : String(e) },
    };
  }
  if (answer === null || answer === undefined) return { result: null };
  try {
    applyAnswer(point, pristine, answer, { hook: hooks.constructor.name });
  } catch (e) {
    if (!(e instanceof DecisionTypeError)) throw e;
    return { error: { code: RPC_ERRORS.HOOK_FAILED, message: e.message } };
  }
  const given = answer as Record<string, unknown>;
  const picked = decisionNames(point).filter((k) => given[k] !== undefined);
  return { result: Object.fromEntries(picked.map((k) => [k, given[k]])) };
}

/** Options for {@linkcode serveHooks}. */
export interface ServeHooksOptions {
  /** The port to listen on (`0` picks a free one; read it from `server.addr`). */
  port: number;
  /** Default `127.0.0.1`. Bind a public address only behind TLS. */
  hostname?: string;
  /**
   * The NAME of an environment variable holding the bearer token callers must send
   * (`Authorization: Bearer <token>`). Read once, at start; unset or empty is an error.
   */
  tokenEnv?: string;
  /** Where JSON-RPC is POSTed; default `/`. `GET /health` always answers `ok`. */
  path?: string;
  /** Aborting it shuts the server down. */
  signal?: AbortSignal;
  /** Called once listening (default: Deno's "Listening on …" line). */
  onListen?: (addr: Deno.NetAddr) => void;
  /**
   * Largest request body accepted, in bytes; default 1 MiB. Larger → 413, refused on its
   * Content-Length or, for a body without one, as soon as the count passes the limit.
   */
  maxBodyBytes?: number;
}

/**
 * Serves `hooks` over HTTP: JSON-RPC 2.0 POSTs at `path`, `GET /health` → `200 ok`, an
 * optional bearer check (401 on a wrong or missing token, compared in constant time).
 * A notification is answered `204`. The token is never logged.
 *
 * @throws {Error} when `tokenEnv` names an unset variable, or `path` is not a path.
 */
export function serveHooks(
  hooks: LifecycleHooks,
  opts: ServeHooksOptions,
): Deno.HttpServer<Deno.NetAddr> {
  const path = opts.path ?? "/";
  if (!path.startsWith("/") || path === "/health") {
    throw new Error(
      `serveHooks: path must start with "/" and not be "/health" (got ${JSON.stringify(path)})`,
    );
  }
  let token: Uint8Array | undefined;
  if (opts.tokenEnv !== undefined) {
    const value = Deno.env.get(opts.tokenEnv);
    if (!value) {
      throw new Error(
        `serveHooks: tokenEnv names ${opts.tokenEnv}, but that environment variable is unset or ` +
          `empty; export the bearer token in it, or leave tokenEnv out to serve without a token`,
      );
    }
    token = new TextEncoder().encode(value);
  }
  const max = opts.maxBodyBytes ?? 1 << 20;
  const handler = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    if (url.pathname === "/health") {
      return req.method === "GET" || req.method === "HEAD"
        ? new Response("ok", { headers: { "content-type": "text/plain" } })
        : new Response("method not allowed\n", { status: 405, headers: { allow: "GET" } });
    }
    if (url.pathname !== path) return new Response("not found\n", { status: 404 });
    if (req.method !== "POST") {
      return new Response("method not allowed: POST JSON-RPC 2.0\n", {
        status: 405,
        headers: { allow: "POST" },
      });
    }
    if (token && !bearerMatches(req.headers.get("authorization"), token)) {
      return new Response("unauthorized\n", {
        status: 401,
        headers: { "www-authenticate": "Bearer" },
      });
    }
    const bytes = await readBody(req, max);
    if (!bytes) {
      return new Response(`request body too large (over ${max} bytes)\n`, { status: 413 });
    }
    const answer = await handleRequest(hooks, new TextDecoder().decode(bytes));
    if (answer === null) return new Response(null, { status: 204 });
    return new Response(answer, { headers: { "content-type": "application/json" } });
  };
  return Deno.serve({
    port: opts.port,
    hostname: opts.hostname ?? "127.0.0.1",
    signal: opts.signal,
    onListen: opts.onListen,
  }, handler);
}

/**
 * The request body, or `undefined` when it is larger than `max` bytes: refused on its
 * Content-Length before a byte is read, else counted while reading and the stream cancelled at
 * the limit (a chunked body declares no length), so an oversized body is never buffered.
 */
async function readBody(req: Request, max: number): Promise<Uint8Array | undefined> {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (declared > max) {
    await req.body?.cancel().catch(() => {});
    return undefined;
  }
  return await readCapped(req.body, max);
}

/** `Authorization: Bearer <token>` matches, compared in time independent of where they differ. */
function bearerMatches(header: string | null, token: Uint8Array): boolean {
  const m = /^Bearer +(.+)$/i.exec(header ?? "");
  const given = new TextEncoder().encode(m ? m[1].trim() : "");
  let diff = given.length ^ token.length;
  for (let i = 0; i < token.length; i++) diff |= token[i] ^ (given[i] ?? 0);
  return diff === 0;
}
