/**
 * The inputs of `hooks test`: the point (a usage error, with a suggestion, when it is not one),
 * the sample context file and the expected decisions file, each checked against the point's
 * field table with an error naming the file and the field at fault.
 *
 * @module
 */
import { isAbsolute, join } from "node:path";
import { didYouMean, isMapping } from "../../config/mod.ts";
import { messageOf, UsageError } from "../../errors.ts";
import {
  type Context,
  ContextError,
  decisionNames,
  isPointName,
  makeContext,
  POINT_NAMES,
  type PointName,
} from "../../lifecycle/sdk/mod.ts";
import type { CliContext } from "../context.ts";

/** `--point`'s value as a point; a {@linkcode UsageError} (exit 2) otherwise. */
export function parsePoint(value: string): PointName {
  if (isPointName(value)) return value;
  const guess = didYouMean(value, POINT_NAMES);
  throw new UsageError(
    `--point: "${value}" is not a lifecycle point` +
      (guess ? ` (did you mean ${guess}?)` : "") +
      `; the points: ${POINT_NAMES.join(", ")}`,
  );
}

/** A JSON file's content (`-`: stdin), with errors naming the flag and the file. */
export async function readJsonInput(ctx: CliContext, flag: string, file: string): Promise<{
  value: unknown;
  label: string;
}> {
  const label = file === "-" ? "stdin" : file;
  let text: string;
  try {
    // CliContext has no stdin; `-` is the one place a command reads it
    text = file === "-"
      ? await new Response(Deno.stdin.readable).text()
      : await Deno.readTextFile(isAbsolute(file) ? file : join(ctx.cwd, file));
  } catch (err) {
    throw new Error(`${flag} ${label}: cannot read it (${messageOf(err)})`);
  }
  try {
    return { value: JSON.parse(text), label };
  } catch (err) {
    throw new Error(`${flag} ${label}: not valid JSON (${messageOf(err)})`);
  }
}

/**
 * The context `point`'s hooks would get, built from a sample: the context's fields (or the
 * `{"point", "context"}` envelope a command hook reads); `work_item` and `endpoint` may be bare
 * ref strings; decisions not given take their defaults.
 */
export function buildContext(point: PointName, raw: unknown, label: string): Context {
  let fields = raw;
  if (isMapping(raw) && isMapping(raw.context) && typeof raw.point === "string") {
    if (raw.point !== point) {
      throw new Error(
        `--context ${label}: the file is for point ${raw.point}, but --point is ${point}`,
      );
    }
    fields = raw.context;
  }
  try {
    return makeContext(point, fields as never) as Context;
  } catch (err) {
    if (!(err instanceof ContextError)) throw err;
    const what = err.field ? ` (field "${err.field}")` : "";
    throw new Error(
      `--context ${label}${what}: ${err.message}; ` +
        `see 'the-loop hooks points' for ${point}'s fields`,
    );
  }
}

/** The expected decisions: an object whose every key is one of `point`'s decisions. */
export function parseExpect(
  point: PointName,
  raw: unknown,
  label: string,
): Record<string, unknown> {
  const decisions = decisionNames(point);
  if (!isMapping(raw)) {
    throw new Error(
      `--expect ${label}: must be a JSON object of decisions (${decisions.join(", ")})`,
    );
  }
  for (const key of Object.keys(raw)) {
    if (!decisions.includes(key)) {
      throw new Error(
        `--expect ${label}: "${key}" is not a decision of ${point} (decisions: ${
          decisions.join(", ")
        })`,
      );
    }
  }
  return raw;
}
