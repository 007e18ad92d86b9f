/**
 * Reads a response body with a running count, so a hook server (or anything impersonating one)
 * cannot make the-loop buffer an unbounded answer: past the cap the stream is cancelled.
 *
 * @module
 */

import { readCapped as readBytesCapped } from "../_read_capped.ts";

/** Largest response body a remote hook may send: 1 MiB. */
export const MAX_RESPONSE_BYTES = 1 << 20;

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
