/**
 * A loopback JSON-RPC server for the remote executor's tests: binds 127.0.0.1 on a free port,
 * records every request, and answers with the handler the test gives it.
 *
 * @module
 */

/** One request the server saw. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: Headers;
  body: string;
}

/** A running test server. */
export interface TestServer {
  url: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

/** Starts a server; `handler` gets the parsed JSON body (or `undefined`) and the raw request. */
export function startServer(
  handler: (
    body: Record<string, unknown> | undefined,
    req: SeenRequest,
  ) => Response | Promise<Response>,
): TestServer {
  const seen: SeenRequest[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const text = await req.text();
    const got = {
      method: req.method,
      path: new URL(req.url).pathname,
      headers: req.headers,
      body: text,
    };
    seen.push(got);
    let body: Record<string, unknown> | undefined;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return await handler(body, got);
  });
  const { port } = server.addr as Deno.NetAddr;
  return { url: `http://127.0.0.1:${port}/rpc`, seen, close: () => server.shutdown() };
}

/** A JSON response. */
export function json(value: unknown, status = 200): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** A port nothing listens on: bound, then released. */
export async function closedPortUrl(): Promise<string> {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = l.addr as Deno.NetAddr;
  l.close();
  await Promise.resolve();
  return `http://127.0.0.1:${port}/rpc`;
}
