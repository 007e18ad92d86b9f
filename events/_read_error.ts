/**
 * The error for an event log that exists but cannot be read (a directory, no permission, an
 * empty path): it names the log and says where its path comes from, instead of a bare OS message.
 *
 * @module
 */
import { messageOf } from "../errors.ts";
import { fileReader, type RandomReader } from "./lines.ts";

/** Wraps `cause` (an open, stat or read failure on `path`) in an error a user can act on. */
export function logReadError(path: string, cause: unknown): Error {
  const shown = path === "" ? '""' : path;
  const reason = path === "" ? "the path is empty" : messageOf(cause)
    .replace(/: \w+ '.*'$/, "") // Deno's ": open '/the/path'" repeats the path
    .replace(/ \(os error \d+\)/, "");
  return new Error(
    `cannot read the event log ${shown} (${reason}); ` +
      "check eventLog.path in the config or pass --file",
    { cause },
  );
}

/** Throws {@linkcode logReadError} for an empty path (which the OS would call "not found"). */
export function assertLogPath(path: string): void {
  if (path === "") throw logReadError(path, undefined);
}

/** A reader over `file` whose read failures become {@linkcode logReadError}s. */
export function checkedReader(file: Deno.FsFile, path: string): RandomReader {
  const inner = fileReader(file);
  return {
    readAt: (buf, offset) =>
      inner.readAt(buf, offset).catch((error) => Promise.reject(logReadError(path, error))),
  };
}

/** `file.stat()`, its failure a {@linkcode logReadError}. */
export function checkedStat(file: Deno.FsFile, path: string): Promise<Deno.FileInfo> {
  return file.stat().catch((error) => Promise.reject(logReadError(path, error)));
}
