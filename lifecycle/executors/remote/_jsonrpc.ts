/**
 * The client half of the JSON-RPC 2.0 wire a remote hook speaks: checking a response body
 * against the request it answers. Returns the answer or a reason the body is unacceptable. An
 * error response with `"id": null` (what servers send when they could not read the request's
 * id) is taken as this request's error.
 *
 * @module
 */
import type { HookErrorCode } from "../../executor.ts";
import { rpc } from "../../_messages.ts";

/** A checked response: the hook's answer, or why the response was refused. */
export type RpcOutcome =
  | { ok: true; answer: Record<string, unknown> | null }
  | { ok: false; code: HookErrorCode; detail: string };

/** The most of a JSON-RPC error's message a failure quotes, in characters. */
export const ERROR_MESSAGE_MAX = 2000;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

const refused = (detail: string): RpcOutcome => ({ ok: false, code: "bad-answer", detail });

/** Checks the text of a response to the request numbered `id`. */
export function checkResponse(text: string, id: number): RpcOutcome {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return refused(rpc.notJson);
  }
  if (!isObject(body) || body.jsonrpc !== "2.0") return refused(rpc.notJsonRpc);
  // A server that could not read the request (parse error, invalid request) answers with
  // "id": null: its error is still the answer to this call.
  if (body.id !== id && !(body.id === null && "error" in body)) {
    return refused(rpc.otherRequest(body.id, id));
  }
  if ("error" in body) {
    const err = isObject(body.error) ? body.error : {};
    const msg = typeof err.message !== "string"
      ? rpc.noErrorMessage
      : err.message.length <= ERROR_MESSAGE_MAX
      ? err.message
      : rpc.cut(err.message, ERROR_MESSAGE_MAX);
    const code = typeof err.code === "number" ? err.code : undefined;
    return { ok: false, code: "threw", detail: rpc.error(code, msg) };
  }
  if (!("result" in body)) return refused(rpc.neither);
  if (body.result === null) return { ok: true, answer: null };
  if (isObject(body.result)) return { ok: true, answer: body.result };
  return refused(rpc.badResult(describe(body.result)));
}
