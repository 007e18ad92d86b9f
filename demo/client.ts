/**
 * What `the-loop demo comment` and `demo close` do: act on the running demo's fake GitHub as
 * its person (`you`), through the REST API with that person's token — the same calls a person's
 * own client makes on GitHub, so the daemon sees them as it would theirs.
 *
 * @module
 */
import type { DemoRun } from "./run_file.ts";

/** Sends one request as the demo's person; throws saying what failed. */
async function asPerson(run: DemoRun, method: string, path: string, body: unknown) {
  let res: Response;
  try {
    res = await fetch(`${run.apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${run.userToken}`,
        "content-type": "application/json",
        accept: "application/vnd.github+json",
      },
      body: JSON.stringify(body),
    });
  } catch (e) {
    throw new Error(
      `the demo's GitHub (${run.apiUrl}) does not answer (${
        e instanceof Error ? e.message : e
      }): is \`the-loop demo\` still running?`,
    );
  }
  const text = await res.text();
  if (!res.ok) {
    const why = (() => {
      try {
        return JSON.parse(text).message;
      } catch {
        return text.trim();
      }
    })();
    throw new Error(`${method} ${path}: ${res.status} ${why || res.statusText}`);
  }
  return JSON.parse(text);
}

/** Comments `body` on item `n` as the demo's person; the comment's URL. */
export async function demoComment(run: DemoRun, n: number, body: string): Promise<string> {
  const c = await asPerson(run, "POST", `/repos/${run.repo}/issues/${n}/comments`, { body });
  return String(c.html_url ?? "");
}

/** Closes (or with `reopen`, reopens) item `n` as the demo's person. */
export async function demoSetState(run: DemoRun, n: number, state: "open" | "closed") {
  await asPerson(run, "PATCH", `/repos/${run.repo}/issues/${n}`, { state });
}
