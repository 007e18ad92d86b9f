/**
 * Reads a response body with a running count, so a hook server (or anything impersonating one)
 * cannot make the-loop buffer an unbounded answer: past the cap the stream is cancelled.
 *
 * @module
 */

import { readCapped as readBytesCapped } from "../../sdk/read_capped.ts";
import { ANSWER_MAX_BYTES } from "../../sdk/contract.ts";

/** Largest response body a remote hook may send: 1 MiB, the cap on a hook's whole answer. */
export const MAX_RESPONSE_BYTES = ANSWER_MAX_BYTES;

/** The body's text, or `undefined` (the stream cancelled) once it exceeds `max` bytes. */
export async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  max: number,
): Promise<string | undefined> {
  const bytes = await readBytesCapped(body, max);
  return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
}

/** The origin a redirect's `Location` points at (never its path or query), for an error. */
export function locationOrigin(location: string | null, base: URL): string {
  if (!location) return "nowhere (no Location header)";
  try {
    return new URL(location, base).origin;
  } catch {
    return "an invalid Location";
  }
}
