/**
 * The client half of the JSON-RPC 2.0 wire a remote hook speaks: checking a response body
 * against the request it answers. Returns the answer or a reason the body is unacceptable. An
 * error response with `"id": null` (what servers send when they could not read the request's
 * id) is taken as this request's error.
 *
 * @module
 */

/** A checked response: the hook's answer, or why the response was refused. */
export type RpcOutcome =
  | { ok: true; answer: Record<string, unknown> | null }
  | { ok: false; message: string };

/** The most of a JSON-RPC error's message a failure quotes, in characters. */
export const ERROR_MESSAGE_MAX = 2000;

/** `msg`, cut to {@linkcode ERROR_MESSAGE_MAX} characters with a note of how much was cut. */
function capped(msg: string): string {
  if (msg.length <= ERROR_MESSAGE_MAX) return msg;
  return `${msg.slice(0, ERROR_MESSAGE_MAX)}… (${msg.length - ERROR_MESSAGE_MAX} more ` +
    `characters cut)`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

/** Checks the text of a response to the request numbered `id`. */
export function checkResponse(text: string, id: number): RpcOutcome {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, message: "the response body is not JSON" };
  }
  if (!isObject(body) || body.jsonrpc !== "2.0") {
    return { ok: false, message: 'the response is not JSON-RPC 2.0 (no "jsonrpc": "2.0" object)' };
  }
  // A server that could not read the request (parse error, invalid request) answers with
  // "id": null: its error is still the answer to this call.
  if (body.id !== id && !(body.id === null && "error" in body)) {
    return {
      ok: false,
      message: `the response answers a different request (id ${JSON.stringify(body.id)}, ` +
        `expected ${id})`,
    };
  }
  if ("error" in body) {
    const err = isObject(body.error) ? body.error : {};
    const msg = typeof err.message === "string" ? capped(err.message) : "(no message)";
    const code = typeof err.code === "number" ? ` (code ${err.code})` : "";
    return { ok: false, message: `the hook answered an error${code}: ${msg}` };
  }
  if (!("result" in body)) {
    return {
      ok: false,
      message: 'the response is not JSON-RPC 2.0 (neither "result" nor "error")',
    };
  }
  if (body.result === null) return { ok: true, answer: null };
  if (isObject(body.result)) return { ok: true, answer: body.result };
  return {
    ok: false,
    message: `the result must be null or an object of decisions (got ${describe(body.result)})`,
  };
}
