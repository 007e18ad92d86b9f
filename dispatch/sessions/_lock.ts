/**
 * The lock every read-modify-write of a session file holds: an OS file lock (`flock`, through
 * `Deno.FsFile.lock`) on `<slug>.lock` beside `<slug>.json`. Not on the JSON file itself: every
 * write replaces that file (temp file + rename), so a lock on it would be a lock on an inode
 * that is about to be unlinked. The lock file is never removed (removing it would let two
 * processes lock two different inodes of one name). Inside one process the callers queue on a
 * promise chain first, so waiting never ties up a thread; across processes (the daemon and a
 * CLI verb) the kernel queues them, and drops the lock of a process that dies holding it.
 *
 * @module
 */
import { dirname } from "node:path";

const queues = new Map<string, Promise<void>>();

/** Runs `fn` holding the exclusive lock on `path` (created, with its folder, when missing). */
export async function withFileLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const before = queues.get(path) ?? Promise.resolve();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const mine = before.then(() => held);
  queues.set(path, mine);
  await before;
  try {
    await Deno.mkdir(dirname(path), { recursive: true });
    using file = await Deno.open(path, { read: true, write: true, create: true });
    await file.lock(true);
    try {
      return await fn();
    } finally {
      await file.unlock();
    }
  } finally {
    release();
    if (queues.get(path) === mine) queues.delete(path);
  }
}
