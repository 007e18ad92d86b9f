/**
 * The worker's replies as the host reads them, and how a failure is described.
 *
 * @module
 */

/** One reply from the worker runtime (`_runtime.ts`). */
export interface WorkerReply {
  id: number;
  ok: boolean;
  /** init: the points the hook handles. */
  handles?: string[];
  /** init: the hook's own method names (capped by the runtime; checked by the host). */
  methods?: string[];
  /** call: the checked answer. */
  answer?: Record<string, unknown> | null;
  /** failure: the error's message and, when it was an Error, its stack. */
  error?: string;
  stack?: string;
}

const RUNTIME_FRAME =
  /\/lifecycle\/executors\/module\/_runtime[a-z_]*\.ts:\d+:\d+\)?$|the-loop-hook-entry\.js:\d+:\d+\)?$|^at (?:.* \()?ext:/;

/** The stack without the worker runtime's own frames (they say nothing about the hook). */
export function hookStack(stack: string): string {
  return stack.split("\n").filter((line) => !RUNTIME_FRAME.test(line.trim())).join("\n");
}

/** `file:line:col` of the first frame of `stack` in a file (not the runtime), if any. */
export function firstLocation(stack: string | undefined): string | undefined {
  for (const line of hookStack(stack ?? "").split("\n")) {
    const m = /file:\/\/(\/[^\s)]+:\d+:\d+)/.exec(line);
    if (m) return decodeURIComponent(m[1]);
  }
  return undefined;
}

/** A failure reply as one message: the stack (runtime frames removed) or the message. */
export function describeWorkerError(reply: WorkerReply): string {
  if (reply.stack && reply.stack.includes(reply.error ?? "")) {
    return permissionHint(hookStack(reply.stack));
  }
  return permissionHint(reply.error ?? "unknown error");
}

/**
 * Deno's permission errors tell a CLI user to "run again with the --allow-X flag"; for a hook
 * the fix is a grant in its declaration, so say that instead.
 */
export function permissionHint(text: string): string {
  return text.replace(
    /, run again with the --allow-(\w+) flag/g,
    (_m, kind) => ` (not granted to this hook: add it to the entry's permissions.${kind})`,
  );
}
