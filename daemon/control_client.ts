/**
 * The CLI's side of a daemon's control endpoint (`control_socket.ts`): {@linkcode callControl}
 * connects, sends one request line, reads the one answer line. No daemon there (no socket file,
 * or a dead daemon's that nothing listens on) is a {@linkcode NotRunningError}, so the caller
 * can try the other daemon's socket and say which command starts one.
 *
 * ```ts
 * const answer = await callControl("/repo/.the-loop/poll.sock", { v: 1, verb: "reply", … });
 * ```
 *
 * @module
 */
import { deadline, DeadlineError } from "../async/mod.ts";
import { messageOf } from "../errors.ts";
import { type ControlResponse, MAX_REQUEST_BYTES, readLine, writeAll } from "./control_socket.ts";

/** How long {@linkcode callControl} waits for the answer by default (a verb waits its turn). */
export const CALL_TIMEOUT_MS = 120_000;

/** Nothing listens at the socket's path. */
export class NotRunningError extends Error {
  override name = "NotRunningError";
  readonly path: string;
  constructor(path: string, why: string) {
    super(`no daemon listens at ${path} (${why})`);
    this.path = path;
  }
}

/** Sends `request` to the daemon at `path`; its answer. */
export async function callControl(
  path: string,
  request: Record<string, unknown>,
  opts: { timeoutMs?: number } = {},
): Promise<ControlResponse> {
  let conn: Deno.UnixConn;
  try {
    conn = await Deno.connect({ transport: "unix", path });
  } catch (error) {
    if (
      error instanceof Deno.errors.NotFound || error instanceof Deno.errors.ConnectionRefused
    ) throw new NotRunningError(path, messageOf(error));
    throw new Error(`cannot reach the daemon at ${path}: ${messageOf(error)}`);
  }
  const ms = opts.timeoutMs ?? CALL_TIMEOUT_MS;
  try {
    await writeAll(conn, new TextEncoder().encode(JSON.stringify(request) + "\n"));
    const line = await deadline(readLine(conn, MAX_REQUEST_BYTES * 4), ms);
    if (line === "too-long" || line.length === 0) {
      throw new Error(`the daemon at ${path} gave no answer one can read`);
    }
    return responseOf(new TextDecoder().decode(line), path);
  } catch (error) {
    if (error instanceof DeadlineError) {
      throw new Error(
        `the daemon at ${path} did not answer within ${Math.round(ms / 1000)} s; ` +
          "it may still do it: look at `the-loop events`",
      );
    }
    throw error;
  } finally {
    try {
      conn.close();
    } catch { /* closed already */ }
  }
}

function responseOf(text: string, path: string): ControlResponse {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Error(`the daemon at ${path} answered something that is not JSON`);
  }
  const r = doc as Partial<ControlResponse>;
  if (
    typeof doc !== "object" || doc === null || ![0, 1, 2].includes(r.exit as number) ||
    typeof r.message !== "string"
  ) throw new Error(`the daemon at ${path} answered something that is not a verb's result`);
  return {
    exit: r.exit as 0 | 1 | 2,
    message: r.message,
    ...(r.data && typeof r.data === "object" ? { data: r.data } : {}),
  };
}
