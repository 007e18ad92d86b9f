/**
 * The hook-host protocol's lines, both ways (the child's stdin, the parent's view of its
 * stdout): read into one buffer, decoded as it comes, and gathered in pieces so a long line (a
 * load message's bundle, megabytes; a large answer) costs time linear in its length.
 *
 * @module
 */

/** What {@linkcode hostLines} reads from: `Deno.stdin`, {@linkcode streamReader}, a test's own. */
export interface ByteReader {
  read(p: Uint8Array): Promise<number | null>;
}

/** `stream` read as a {@linkcode ByteReader} (a child's stdout, for its parent). */
export function streamReader(stream: ReadableStream<Uint8Array>): ByteReader {
  const reader = stream.getReader();
  let rest: Uint8Array = new Uint8Array(0);
  return {
    async read(p) {
      if (rest.length === 0) {
        const next = await reader.read();
        if (next.done) return null;
        rest = next.value;
      }
      const n = Math.min(p.length, rest.length);
      p.set(rest.subarray(0, n));
      rest = rest.subarray(n);
      return n;
    },
  };
}

/**
 * Yields each newline-ended line of `reader`, without its newline; a last line with no newline
 * is dropped (the parent ends every message with one, so only a parent cut off leaves one).
 * One buffer is read into: a new one per read (as `Deno.stdin.readable` gives) is memory outside
 * V8's heap that its collector frees late, and in the hook host it would count against the hook.
 */
export async function* hostLines(
  reader: ByteReader,
  opts: { chunkBytes?: number } = {},
): AsyncGenerator<string> {
  const chunk = new Uint8Array(opts.chunkBytes ?? 64 * 1024);
  const decoder = new TextDecoder();
  let parts: string[] = []; // the line so far: pieces, joined once its newline arrives
  for (let n; (n = await reader.read(chunk)) !== null;) {
    let text = decoder.decode(chunk.subarray(0, n), { stream: true });
    for (let nl; (nl = text.indexOf("\n")) >= 0; text = text.slice(nl + 1)) {
      parts.push(text.slice(0, nl));
      yield parts.join("");
      parts = [];
    }
    if (text) parts.push(text);
  }
}
