/**
 * Test helpers for daemon/: a separate process that holds a pidfile's lock.
 *
 * @module
 */
const LOCK_URL = new URL("./lock.ts", import.meta.url).href;

/** The holder script: takes the lock, says so, then waits (ignoring SIGTERM when asked). */
function holderScript(pidfile: string, opts: { ignoreTerm: boolean }): string {
  return `
import { DaemonLock } from ${JSON.stringify(LOCK_URL)};
const lock = await DaemonLock.acquire(${JSON.stringify(pidfile)});
${
    opts.ignoreTerm
      ? `Deno.addSignalListener("SIGTERM", () => {});`
      : `Deno.addSignalListener("SIGTERM", async () => { await lock.release(); Deno.exit(0); });`
  }
console.log("locked");
setInterval(() => {}, 1000);
`;
}

/** A process holding `pidfile`'s lock; resolves once it holds it. */
export async function holdLock(
  pidfile: string,
  opts: { ignoreTerm?: boolean } = {},
): Promise<Deno.ChildProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-prompt", holderScript(pidfile, { ignoreTerm: opts.ignoreTerm ?? false })],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes("locked\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the lock holder exited before taking the lock: ${seen}`);
    seen += value;
  }
  await reader.cancel();
  return child;
}
