/**
 * Reads a response body with a running count, so a hook server (or anything impersonating one)
 * cannot make the-loop buffer an unbounded answer: past the cap the stream is cancelled.
 *
 * @module
 */

/** Largest response body a remote hook may send: 1 MiB. */
export const MAX_RESPONSE_BYTES = 1 << 20;

/** The body's text, or `undefined` (the stream cancelled) once it exceeds `max` bytes. */
export async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  max: number,
): Promise<string | undefined> {
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => {});
        return undefined;
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(all);
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
