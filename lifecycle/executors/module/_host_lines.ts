/**
 * The hook host's input, split into lines: read into one buffer, decoded as it comes, and
 * gathered in pieces so a long line (a load message's bundle, megabytes) costs time linear in
 * its length.
 *
 * @module
 */

/** What {@linkcode hostLines} reads from: `Deno.stdin`, or a test's own. */
export interface ByteReader {
  read(p: Uint8Array): Promise<number | null>;
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
