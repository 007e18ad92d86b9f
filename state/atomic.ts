/**
 * Atomic file writes: the data goes to a temp file in the target's directory, is flushed to
 * disk, then renamed over the target. Readers see the old file or the new one, never a torn
 * one, and a failed write leaves the old file as it was.
 *
 * @module
 */
import { basename, dirname, join } from "node:path";
import { inFolder } from "./files.ts";

/** Options for {@linkcode writeFileAtomic}. */
export interface WriteAtomicOptions {
  /** File mode of the result (e.g. `0o600`); default: the replaced file's mode, else `0o644`. */
  mode?: number;
  /**
   * Flush the data and the directory to disk before returning (default true). `false` is still
   * atomic and survives a crash of the process (the kernel has the data), but not an OS crash
   * or power loss, which may bring the previous version back; it costs no disk wait.
   */
  durable?: boolean;
}

const encoder = new TextEncoder();
const posix = Deno.build.os !== "windows";

function existingMode(path: string): number | undefined {
  try {
    return Deno.statSync(path).mode ?? undefined;
  } catch {
    return undefined;
  }
}

async function syncDir(dir: string): Promise<void> {
  if (!posix) return;
  try {
    using handle = Deno.openSync(dir, { read: true });
    await handle.sync();
  } catch { /* best effort: some filesystems refuse to sync a directory */ }
}

/**
 * Writes `data` to `path` atomically, creating missing parent directories.
 * Throws (with the old file untouched and no temp file left) when any step fails.
 *
 * The steps the kernel may make slow — creating the temp file and renaming it over the target
 * (ext4 starts the new data's writeback there) — and the disk flushes run off the calling
 * thread; the cheap ones (the mode, a stat) are synchronous calls. `durable: false` creates and
 * fills the temp file in one call.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  opts: WriteAtomicOptions = {},
): Promise<void> {
  const dir = dirname(path);
  const mode = opts.mode ?? existingMode(path) ?? 0o644;
  const tmp = join(dir, `.${basename(path)}.${crypto.randomUUID().slice(0, 8)}.tmp`);
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  const durable = opts.durable !== false;
  try {
    if (durable) {
      using file = await inFolder(
        tmp,
        () => Deno.open(tmp, { write: true, createNew: true, mode }),
      );
      let rest = bytes;
      while (rest.length > 0) rest = rest.subarray(file.writeSync(rest));
      await file.sync();
    } else {
      await inFolder(tmp, () => Deno.writeFile(tmp, bytes, { createNew: true, mode }));
    }
    if (posix) Deno.chmodSync(tmp, mode & 0o7777); // the umask trimmed the open() mode
    await Deno.rename(tmp, path);
  } catch (error) {
    // a name taken by another writer's temp file is not ours to remove
    if (!(error instanceof Deno.errors.AlreadyExists)) {
      try {
        Deno.removeSync(tmp);
      } catch { /* never created, or already gone */ }
    }
    throw error;
  }
  if (durable) await syncDir(dir);
}
