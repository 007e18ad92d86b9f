/**
 * Test helpers for the GitHub client: a client pointed at a fake GitHub with a sleep that
 * records its waits and returns at once, a fixed clock and no jitter.
 *
 * @module
 */
import { MemorySink } from "../events/sinks.ts";
import { GitHubClient, type GitHubClientOptions } from "./mod.ts";

/** A token shaped like a real one, so the scrubber and the tests both see it. */
export const TOKEN = "ghp_TestToken1234567890abcdefABCDEF0000";

/** The fixed "now" of {@linkcode testClient}: 2026-01-01T00:00:00Z. */
export const NOW = Date.UTC(2026, 0, 1);

/** A client, the waits it made and the events it emitted. */
export function testClient(
  apiUrl: string,
  opts: Partial<GitHubClientOptions> = {},
): { gh: GitHubClient; waits: number[]; sink: MemorySink } {
  const waits: number[] = [];
  const sink = new MemorySink({ strict: true, source: "poll" });
  const gh = new GitHubClient({
    apiUrl,
    token: TOKEN,
    events: sink,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    now: () => NOW,
    random: () => 0.5,
    ...opts,
  });
  return { gh, waits, sink };
}
