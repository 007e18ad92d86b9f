/**
 * Writes a realistic synthetic event log for benches: a mix of sources and types, about 5% of
 * them `hooks.*`, written in large chunks (not through `EventLog`, which opens the file per
 * record and would make a million lines slow to set up).
 *
 * @module
 */

const TYPES: [string, string, string][] = [
  ["poll", "poll.checked", "info"],
  ["gh-webhook", "gh_webhook.received", "info"],
  ["sessions", "sessions.output", "debug"],
  ["sessions", "sessions.phase_changed", "info"],
  ["cli", "cli.started", "info"],
];

/** Options for {@linkcode writeEventLog}. */
export interface EventLogSpec {
  path: string;
  lines: number;
  /** Every `hooksEvery`-th line is a `hooks.ran`; default 20. */
  hooksEvery?: number;
}

/** Writes `spec.lines` records to `spec.path` (overwriting it). Resolves to the byte size. */
export async function writeEventLog(spec: EventLogSpec): Promise<number> {
  const file = await Deno.open(spec.path, { write: true, create: true, truncate: true });
  const encoder = new TextEncoder();
  const start = Date.parse("2026-07-22T00:00:00Z");
  const every = spec.hooksEvery ?? 20;
  let size = 0;
  try {
    let batch: string[] = [];
    for (let i = 0; i < spec.lines; i++) {
      const ts = new Date(start + i * 10).toISOString();
      const work = `acme/widgets#${i % 997}`;
      let rec: Record<string, unknown>;
      if (i % every === 0) {
        rec = {
          ts,
          source: "hooks",
          event: "hooks.ran",
          level: "info",
          pid: 4242,
          point: "work_item_start",
          hook: `hook-${i % 7}`,
          kind: "module",
          work_item: work,
          duration_ms: i % 300,
          disposition: "passed",
          changed: [],
        };
      } else {
        const [source, event, level] = TYPES[i % TYPES.length];
        rec = {
          ts,
          source,
          event,
          level,
          pid: 4242,
          work_item: work,
          seq: i,
          detail: "x".repeat(i % 60),
        };
      }
      batch.push(JSON.stringify(rec));
      if (batch.length === 10_000 || i === spec.lines - 1) {
        const bytes = encoder.encode(batch.join("\n") + "\n");
        let rest = bytes;
        while (rest.length > 0) rest = rest.subarray(await file.write(rest));
        size += bytes.length;
        batch = [];
      }
    }
  } finally {
    file.close();
  }
  return size;
}
