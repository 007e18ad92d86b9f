/**
 * Describes whatever a hook threw — an Error, a string, a null-prototype object, a Proxy whose
 * traps throw, an Error whose `message` or `stack` getter throws — as plain strings, without
 * ever throwing itself: every read of the value is guarded, so the runtime's failure reply is
 * always sent and the call fails at once instead of timing out. Part of the worker runtime:
 * embedded as text and bundled ahead of the hook.
 *
 * @module
 */

/** What the worker replies with for a failure. */
export interface Thrown {
  /** The error's message, or the value as text. */
  error: string;
  /** The stack, when the value is an Error whose stack could be read. */
  stack?: string;
}

// Taken before any hook code runs, so a hook cannot swap them for its own.
const isErrorSlot = (Error as unknown as { isError?: (v: unknown) => boolean }).isError;
const ErrorCtor = Error;
const getProto = Object.getPrototypeOf;
const toJson = JSON.stringify;
const toText = String;
const MAX = 2000;

/** `read()`, or `undefined` when it throws or is not a string. */
function text(read: () => unknown): string | undefined {
  try {
    const v = read();
    return typeof v === "string" ? v : undefined;
  } catch {
    return undefined;
  }
}

function isError(v: object): boolean {
  try {
    return isErrorSlot ? isErrorSlot(v) : v instanceof ErrorCtor;
  } catch {
    return false;
  }
}

function kindOf(v: object): string {
  if (typeof v === "function") return "a function";
  try {
    return getProto(v) === null ? "an object with no prototype" : "an object";
  } catch {
    return "an object whose prototype cannot be read (a Proxy?)";
  }
}

function clip(s: string, max = MAX): string {
  return s.length > max ? `${s.slice(0, max)}… (${s.length - max} more characters)` : s;
}

/** A stack holds the message too: clipped as well, so a huge message cannot ride in it. */
const STACK_MAX = 4 * MAX;

/** The stack's frame lines (`    at …`), or undefined. */
function frames(stack: string | undefined): string | undefined {
  const lines = stack?.split("\n").filter((l) => /^\s+at /.test(l));
  return lines?.length ? lines.join("\n") : undefined;
}

/** What is said when even describing the value failed (a hook that broke the built-ins). */
const UNDESCRIBABLE = "the hook threw a value that cannot be described";

/** `err` as the failure reply carries it; never throws. */
export function describeThrown(err: unknown): Thrown {
  try {
    return describe(err);
  } catch {
    return { error: UNDESCRIBABLE };
  }
}

function describe(err: unknown): Thrown {
  if (err === null || (typeof err !== "object" && typeof err !== "function")) {
    return { error: clip(toText(err)) }; // a primitive: String() runs no hook code
  }
  const value = err as Record<string, unknown>;
  if (isError(value)) {
    const message = text(() => value.message);
    const stack = text(() => value.stack);
    if (message !== undefined && message.length <= MAX) {
      return { error: message, stack: stack === undefined ? undefined : clip(stack, STACK_MAX) };
    }
    if (message !== undefined) {
      // a huge message rides in the stack too: rebuild it from the clipped message and the frames
      const error = clip(message);
      const at = frames(stack);
      const head = `${text(() => value.name) ?? "Error"}: ${error}`;
      return { error, stack: at ? clip(`${head}\n${at}`, STACK_MAX) : undefined };
    }
    const name = text(() => value.name) ?? "Error";
    const error = `the hook threw ${name} whose message cannot be read (reading it threw ` +
      "or gave no string)";
    const at = frames(stack);
    return { error, stack: at ? clip(`${error}\n${at}`, STACK_MAX) : undefined };
  }
  const asText = text(() => toText(value));
  if (asText !== undefined) return { error: clip(asText) };
  const kind = kindOf(value);
  const json = text(() => toJson(value));
  if (json !== undefined) return { error: clip(`the hook threw ${kind}: ${json}`) };
  return { error: `the hook threw ${kind} that cannot be described (converting it to text threw)` };
}
