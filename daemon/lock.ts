/**
 * One daemon per pidfile, by an OS file lock (`flock`) on the pidfile itself: the kernel drops the
 * lock when the holder dies, however it dies, so a pidfile left by a SIGKILLed process never
 * blocks a start, and a forged or stale pid never makes a dead daemon look alive.
 *
 * @module
 */
import { dirname } from "node:path";

/** Another live process holds the lock. */
export class LockHeldError extends Error {
  override name = "LockHeldError";
  /** The holder's pid as its pidfile says (null when the file holds none). */
  readonly pid: number | null;
  readonly path: string;

  constructor(path: string, pid: number | null) {
    super(
      `another instance is running (${pid === null ? "pid unknown" : `pid ${pid}`}; it holds ` +
        `the lock on ${path}); stop it first, or give this one another pidfile`,
    );
    this.pid = pid;
    this.path = path;
  }
}

/** What a pidfile says about its daemon. */
export interface LockHolder {
  /** The pid written in the file (null: no file, or no number in it). */
  pid: number | null;
  /** Whether some process holds the lock: the only proof the daemon is alive. */
  live: boolean;
  /** Whether the pidfile exists. */
  exists: boolean;
}

function parsePid(text: string): number | null {
  const n = Number(text.trim());
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

async function readPid(path: string): Promise<number | null> {
  try {
    return parsePid(await Deno.readTextFile(path));
  } catch {
    return null;
  }
}

function sameFile(a: Deno.FileInfo, b: Deno.FileInfo): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** The lock a running daemon holds on its pidfile. */
export class DaemonLock {
  readonly path: string;
  readonly #file: Deno.FsFile;
  #released = false;

  private constructor(path: string, file: Deno.FsFile) {
    this.path = path;
    this.#file = file;
  }

  /**
   * Takes the lock on `pidfile` (creating it and its folder) and writes this process's pid into
   * it. Throws {@linkcode LockHeldError} when another process holds it.
   */
  static async acquire(pidfile: string): Promise<DaemonLock> {
    await Deno.mkdir(dirname(pidfile), { recursive: true });
    for (let attempt = 0; attempt < 5; attempt++) {
      const file = await Deno.open(pidfile, { read: true, write: true, create: true });
      if (!(await file.tryLock(true))) {
        file.close();
        throw new LockHeldError(pidfile, await readPid(pidfile));
      }
      // the previous holder may have removed the file between our open and our lock: then we
      // hold a lock on an unlinked file, and must start over on the new one
      const onDisk = await Deno.stat(pidfile).catch(() => undefined);
      if (!onDisk || !sameFile(onDisk, await file.stat())) {
        file.close();
        continue;
      }
      await file.truncate(0);
      await file.write(new TextEncoder().encode(`${Deno.pid}\n`));
      return new DaemonLock(pidfile, file);
    }
    throw new Error(`could not take the lock on ${pidfile}: it keeps being replaced`);
  }

  /** Removes the pidfile and drops the lock (idempotent). */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    await Deno.remove(this.path).catch(() => {});
    try {
      this.#file.close();
    } catch { /* already closed */ }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.release();
  }
}

/** Reads `pidfile` and asks the kernel whether its lock is held. */
export async function lockHolder(pidfile: string): Promise<LockHolder> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(pidfile, { read: true, write: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { pid: null, live: false, exists: false };
    throw error;
  }
  try {
    const free = await file.tryLock(true);
    if (free) await file.unlock();
    return { pid: await readPid(pidfile), live: !free, exists: true };
  } finally {
    file.close();
  }
}
