/**
 * The loop bench's burst sender: one TCP connection per delivery, all opened before the burst
 * (as GitHub's senders would be, each on its own), then every request written at once as
 * prepared bytes, the send time taken just before each write. What the burst measures is then
 * the daemon's work, not a `fetch` client's: the first request and the two-hundredth go out
 * within a few milliseconds of each other, where 200 concurrent `fetch` calls trickle out over
 * a hundred milliseconds of this process's own CPU.
 *
 * @module
 */

/** A delivery as bytes on a connection of its own, ready to go. */
export interface Armed {
  conn: Deno.TcpConn;
  bytes: Uint8Array;
}

/** What a sent request got back. */
export interface Sent {
  status: number;
  /** `Date.now()` just before the request's bytes were written. */
  sentAt: number;
}

const ENC = new TextEncoder();

/** A POST's bytes (HTTP/1.1; the connection closed after the answer unless `keepAlive`). */
export function requestBytes(
  url: URL,
  headers: Record<string, string>,
  body: string | Uint8Array,
  opts: { keepAlive?: boolean } = {},
): Uint8Array {
  const payload = typeof body === "string" ? ENC.encode(body) : body;
  const lines = [
    `POST ${url.pathname}${url.search} HTTP/1.1`,
    `host: ${url.host}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    `content-length: ${payload.length}`,
    ...(opts.keepAlive ? [] : ["connection: close"]),
    "",
    "",
  ];
  const head = ENC.encode(lines.join("\r\n"));
  const out = new Uint8Array(head.length + payload.length);
  out.set(head);
  out.set(payload, head.length);
  return out;
}

/** Opens a connection for each request (all before any is sent). */
export async function arm(url: URL, requests: Uint8Array[]): Promise<Armed[]> {
  const port = Number(url.port);
  return await Promise.all(requests.map(async (bytes) => ({
    conn: await Deno.connect({ hostname: url.hostname, port }),
    bytes,
  })));
}

async function writeAll(conn: Deno.TcpConn, bytes: Uint8Array): Promise<void> {
  let rest = bytes;
  while (rest.length > 0) rest = rest.subarray(await conn.write(rest));
}

async function statusOf(conn: Deno.TcpConn): Promise<number> {
  const buf = new Uint8Array(4096);
  let head = "";
  const dec = new TextDecoder();
  for (;;) {
    const n = await conn.read(buf);
    if (n === null) break;
    head += dec.decode(buf.subarray(0, n), { stream: true });
    if (head.includes("\r\n")) break;
  }
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
  if (!status) throw new Error(`not an HTTP answer: ${JSON.stringify(head.slice(0, 80))}`);
  return status;
}

/**
 * Writes every armed request at once and resolves with each one's send time, without reading
 * the answers: they wait in the kernel until {@linkcode answers}, so a burst's sender takes no
 * CPU from the daemon while the burst is measured.
 */
export async function send(armed: Armed[]): Promise<number[]> {
  const writes: Promise<void>[] = [];
  const sentAt: number[] = [];
  for (const a of armed) {
    sentAt.push(Date.now());
    writes.push(writeAll(a.conn, a.bytes));
  }
  await Promise.all(writes);
  return sentAt;
}

/** Each sent request's status (the connections are closed after). */
export async function answers(armed: Armed[]): Promise<number[]> {
  return await Promise.all(armed.map(async (a) => {
    try {
      return await statusOf(a.conn);
    } finally {
      a.conn.close();
    }
  }));
}

/** Sends every armed request at once; resolves with each one's status and send time. */
export async function fire(armed: Armed[]): Promise<Sent[]> {
  const sentAt = await send(armed);
  const statuses = await answers(armed);
  return statuses.map((status, i) => ({ status, sentAt: sentAt[i] }));
}
