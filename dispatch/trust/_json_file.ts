/**
 * Merging a few `true` keys into someone else's JSON file: every other key kept (in its order,
 * as far as JSON objects allow), the file's indentation kept, written atomically (temp + rename,
 * through a symlink to its target), `0600` on a file it creates and the existing mode otherwise,
 * and nothing written when every key is already right.
 *
 * @module
 */
import { dirname } from "node:path";
import { writeFileAtomic } from "../../state/atomic.ts";
import { messageOf } from "../../errors.ts";

/** One key to set to `true`: its path of object keys, and how it is reported. */
export interface KeyEdit {
  path: string[];
  label: string;
}

/** What a merge did. */
export type MergeResult =
  | { status: "unchanged" }
  | { status: "written"; changed: string[]; created: boolean }
  | { status: "failed"; error: string };

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

async function target(file: string): Promise<string> {
  try {
    return await Deno.realPath(file);
  } catch {
    return file;
  }
}

function indentOf(text: string): string | number {
  const m = /\n([ \t]+)\S/.exec(text);
  return m ? m[1] : 2;
}

/** Sets every edit's key to `true` in `file` (created when missing). Never throws. */
export async function mergeTrue(file: string, edits: readonly KeyEdit[]): Promise<MergeResult> {
  try {
    const path = await target(file);
    let text: string | undefined;
    try {
      text = await Deno.readTextFile(path);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    let data: unknown = {};
    if (text !== undefined && text.trim() !== "") {
      try {
        data = JSON.parse(text);
      } catch (error) {
        const why = messageOf(error);
        return {
          status: "failed",
          error: `not valid JSON (${why}); left as it is: fix or remove it`,
        };
      }
    }
    if (!isObject(data)) {
      return { status: "failed", error: "not a JSON object; left as it is: fix or remove it" };
    }
    const changed: string[] = [];
    for (const edit of edits) {
      let node: Json = data;
      for (const key of edit.path.slice(0, -1)) {
        if (node[key] === undefined) node[key] = {};
        const next = node[key];
        if (!isObject(next)) {
          return {
            status: "failed",
            error: `${edit.label}: "${key}" is not an object; left as it is`,
          };
        }
        node = next;
      }
      const last = edit.path[edit.path.length - 1];
      if (node[last] !== true) {
        node[last] = true;
        changed.push(edit.label);
      }
    }
    if (changed.length === 0) return { status: "unchanged" };
    const created = text === undefined;
    if (created) await Deno.mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const out = JSON.stringify(data, null, indentOf(text ?? "")) +
      (text === undefined || text.endsWith("\n") ? "\n" : "");
    await writeFileAtomic(path, out, created ? { mode: 0o600 } : {});
    return { status: "written", changed, created };
  } catch (error) {
    const why = messageOf(error);
    return { status: "failed", error: `${why}; check the file's permissions` };
  }
}
