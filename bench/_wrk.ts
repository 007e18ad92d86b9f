/**
 * The webhook bench's other loader: `wrk` (Debian package `wrk`), when it is installed and
 * `THE_LOOP_BENCH_LOADER=wrk` asks for it. Same load as the Deno loader — `connections`
 * keep-alive connections, one request after another, each with a unique delivery id and the
 * same signed body — but from a C program that costs the shared cores far less, so more of the
 * machine is left to the receiver. Its report has the Deno loader's shape (wrk gives p50/p99 and
 * the max; it has no warmup, so the receiver's first half second is in the figures).
 *
 * @module
 */
import { join } from "node:path";

/** The Lua script: unique delivery ids (thread, counter), the signature header, the body. */
const SCRIPT = `
local counter = 0
local threads = 0
function setup(thread) thread:set("tid", threads); threads = threads + 1 end
function init(args)
  local f = io.open(args[1], "rb"); body = f:read("*a"); f:close()
  sig = args[2]
end
function request()
  counter = counter + 1
  return wrk.format("POST", nil, {
    ["content-type"] = "application/json",
    ["x-github-event"] = "issue_comment",
    ["x-github-delivery"] = "wrk-" .. tid .. "-" .. counter .. "-" .. os.time(),
    ["x-hub-signature-256"] = sig,
  }, body)
end
`;

/** What a loader of the webhook bench reports (the Deno loader and {@linkcode loadWithWrk}). */
export interface LoadReport {
  seconds: number;
  requests: number;
  accepted: number;
  other_status: Record<string, number>;
  errors: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /**
   * Paced loads only: how late the loader itself sent its requests against their schedule (a
   * loader starved of CPU on cores it shares with the receiver shows here, and in the latency).
   */
  send_lag_p50_ms?: number;
  send_lag_p99_ms?: number;
  /** The Deno loader only: the cores it used itself over the measured seconds (Linux). */
  loader_cores?: number | null;
}

/** Whether `wrk` can be run. */
export async function hasWrk(): Promise<boolean> {
  try {
    const out = await new Deno.Command("wrk", {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    })
      .output();
    return out.code <= 1; // `wrk --version` prints its usage and exits 1
  } catch {
    return false;
  }
}

/** A wrk duration ("812.00us", "4.21ms", "1.02s") in milliseconds. */
function ms(text: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(text);
  if (!m) throw new Error(`wrk printed an unexpected duration: ${text}`);
  const n = Number(m[1]);
  return m[2] === "us" ? n / 1000 : m[2] === "s" ? n * 1000 : n;
}

/** Runs wrk against `url` and reports what the Deno loader reports. */
export async function loadWithWrk(opts: {
  url: string;
  bodyFile: string;
  signature: string;
  connections: number;
  seconds: number;
  dir: string;
}): Promise<LoadReport & { loader: "wrk" }> {
  const script = join(opts.dir, "post.lua");
  await Deno.writeTextFile(script, SCRIPT);
  const out = await new Deno.Command("wrk", {
    args: [
      "-t1",
      `-c${opts.connections}`,
      `-d${opts.seconds}s`,
      "--latency",
      "-s",
      script,
      opts.url,
      "--",
      opts.bodyFile,
      opts.signature,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) throw new Error(`wrk failed: ${new TextDecoder().decode(out.stderr)}`);
  const requests = Number(/(\d+) requests in/.exec(text)?.[1]);
  const other = Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0);
  // "Socket errors: connect 0, read 0, write 0, timeout 0"
  const socket = /Socket errors: (.*)/.exec(text)?.[1] ?? "";
  const errors = [...socket.matchAll(/\d+/g)].reduce((sum, m) => sum + Number(m[0]), 0);
  const percentile = (p: number) => ms(new RegExp(`\\s${p}%\\s+(\\S+)`).exec(text)![1]);
  const max = ms(/Latency\s+\S+\s+\S+\s+(\S+)/.exec(text)![1]);
  return {
    loader: "wrk" as const,
    seconds: opts.seconds,
    requests,
    accepted: requests - other,
    other_status: other > 0 ? { "non-2xx": other } : {},
    errors,
    rps: Math.round(requests / opts.seconds),
    p50_ms: percentile(50),
    p99_ms: percentile(99),
    max_ms: max,
  };
}
