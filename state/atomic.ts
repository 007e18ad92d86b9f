/**
 * Atomic file writes: the data goes to a temp file in the target's directory, is flushed to
 * disk, then renamed over the target. Readers see the old file or the new one, never a torn
 * one, and a failed write leaves the old file as it was.
 *
 * @module
 */
import { basename, dirname, join } from "node:path";

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

async function existingMode(path: string): Promise<number | undefined> {
  try {
    return (await Deno.stat(path)).mode ?? undefined;
  } catch {
    return undefined;
  }
}

async function syncDir(dir: string): Promise<void> {
  if (!posix) return;
  try {
    using handle = await Deno.open(dir, { read: true });
    await handle.sync();
  } catch { /* best effort: some filesystems refuse to sync a directory */ }
}

/**
 * Writes `data` to `path` atomically, creating missing parent directories.
 * Throws (with the old file untouched and no temp file left) when any step fails.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  opts: WriteAtomicOptions = {},
): Promise<void> {
  const dir = dirname(path);
  await Deno.mkdir(dir, { recursive: true });
  const mode = opts.mode ?? (await existingMode(path)) ?? 0o644;
  const tmp = join(dir, `.${basename(path)}.${crypto.randomUUID().slice(0, 8)}.tmp`);
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  try {
    {
      using file = await Deno.open(tmp, { write: true, createNew: true, mode });
      let rest = bytes;
      while (rest.length > 0) rest = rest.subarray(await file.write(rest));
      if (opts.durable !== false) await file.sync();
    }
    if (posix) await Deno.chmod(tmp, mode & 0o7777); // the umask trimmed the open() mode
    await Deno.rename(tmp, path);
  } catch (error) {
    await Deno.remove(tmp).catch(() => {});
    throw error;
  }
  if (opts.durable !== false) await syncDir(dir);
}
