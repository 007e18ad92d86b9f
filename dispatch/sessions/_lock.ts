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
import { inFolder } from "../../state/files.ts";
import { KeyedLock } from "../../async/mod.ts";

const queue = new KeyedLock();

/**
 * Runs `fn` holding the exclusive lock on `path` (created, with its folder, when missing). The
 * open and the unlock are synchronous calls (they never wait); the lock itself is awaited, so
 * a CLI verb holding it never stalls the daemon's thread.
 */
export function withFileLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  return queue.run(path, async () => {
    using file = await inFolder(
      path,
      () => Deno.openSync(path, { read: true, write: true, create: true }),
    );
    await file.lock(true);
    try {
      return await fn();
    } finally {
      file.unlockSync();
    }
  });
}
