/**
 * Reads a body stream with a running count, so nobody on the other end of a connection can make
 * the-loop (or a hook server) buffer an unbounded body: past the cap the stream is cancelled.
 * Part of the SDK's file set (serve.ts uses it), so it imports nothing.
 *
 * @module
 */

/** The body's bytes, or `undefined` (the stream cancelled) once it exceeds `max` bytes. */
export async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  max: number,
): Promise<Uint8Array | undefined> {
  if (!body) return new Uint8Array(0);
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
  return all;
}
