/**
 * The worker side of a module hook. This file is not imported by the-loop: its text is
 * embedded and bundled as the entry of every hook's worker, ahead of the hook, so the guards
 * below are in place before the hook's first line runs. The hook itself is reached through a
 * lazily evaluated import, so a throw at its top level is reported, not fatal.
 *
 * Protocol (host → worker): `{type: "init", id, exportName?, options?, meta?, points, names?}`,
 * `{type: "call", id, point, params}`, `{type: "ping", id}`.
 * Worker → host: `{id, ok: true, handles?, methods? | answer?}` or `{id, ok: false, error,
 * stack?}` (`methods`: the hook's own method names, so the host can say which point a misspelt
 * one was meant to be); `{linked: true}` (no id) once a natively loaded hook's modules linked.
 *
 * @module
 */
import { guardWorker } from "./_runtime_guards.ts";
import { lockDownCode } from "./_runtime_codegen.ts";
import { checkAnswer } from "./_runtime_answer.ts";
import { describeThrown } from "./_runtime_thrown.ts";
import { renamed, setNames } from "./_runtime_refusals.ts";

type Msg =
  | {
    type: "init";
    id: number;
    exportName?: string;
    options?: Record<string, unknown>;
    meta?: { name: string; configDir: string };
    points: string[];
    /** `[blob URL, file URL]`: what stack traces say instead of a native hook's blob URLs. */
    names?: [string, string][];
  }
  | { type: "call"; id: number; point: string; params: Record<string, unknown> }
  | { type: "ping"; id: number };

// deno-lint-ignore no-explicit-any
type Hook = Record<string, any>;

const scope = globalThis as unknown as {
  postMessage(data: unknown): void;
  addEventListener(
    type: string,
    fn: (e: Event & { reason?: unknown; error?: unknown; data?: Msg }) => void,
  ): void;
};
// Taken before the hook runs, then removed: a hook cannot forge or intercept the protocol.
const post = scope.postMessage.bind(scope);
Object.defineProperty(globalThis, "postMessage", {
  value: () => {
    throw new Error("postMessage() is not available to hooks: return the answer instead");
  },
});

let isLinked = false;

/**
 * Called by the marker module a natively loaded hook's wrapper imports first (`_native.ts`):
 * the hook's module graph linked and its code is about to run. The host then knows a failed
 * load is the hook's own, not one to retry through esbuild.
 */
export function linked(): void {
  if (isLinked) return;
  isLinked = true;
  post({ linked: true });
}

/** Answers the init message with the hook's module, once (set while an init is under way). */
let answerInit: ((mod: Hook) => void) | undefined;

/**
 * Called by a natively loaded hook's wrapper module right after the hook's module evaluated, in
 * the same task: the init is answered before anything its top level scheduled (a timer, an
 * abort) can run, as it is when the hook is bundled behind the runtime.
 */
export function hookLoaded(mod: Hook): void {
  answerInit?.(mod);
}

/** Replies with the failure `err`; never throws, whatever the hook threw. */
function fail(id: number, err: unknown): void {
  const { error, stack } = describeThrown(err);
  try {
    post({ id, ok: false, error: renamed(error), stack: stack && renamed(stack) });
  } catch {
    post({ id, ok: false, error: "the hook failed, and its error could not be sent" });
  }
}

function isClass(
  v: unknown,
): v is new (opts: Record<string, unknown>, meta?: { name: string; configDir: string }) => Hook {
  return typeof v === "function" && /^class[\s{]/.test(Function.prototype.toString.call(v));
}

/** Is `v` a class extending the SDK's `LifecycleHooks` (found by name: bundles keep names)? */
function isHooksSubclass(v: unknown): boolean {
  if (!isClass(v) || v.name === "LifecycleHooks") return false;
  for (let p = Object.getPrototypeOf(v); typeof p === "function"; p = Object.getPrototypeOf(p)) {
    if (p.name === "LifecycleHooks") return true;
  }
  return false;
}

function pickTarget(mod: Hook, exportName: string | undefined): [string, unknown] {
  const names = Object.keys(mod);
  const listed = names.length ? names.join(", ") : "none";
  if (exportName !== undefined) {
    if (!Object.hasOwn(mod, exportName)) {
      throw new Error(`has no export named "${exportName}" (exports: ${listed})`);
    }
    return [exportName, mod[exportName]];
  }
  if (mod.default !== undefined) return ["default", mod.default];
  const found = names.filter((n) => isHooksSubclass(mod[n]));
  if (found.length === 1) return [found[0], mod[found[0]]];
  if (found.length === 0) {
    throw new Error(
      `exports no LifecycleHooks subclass (exports: ${listed}); export one, ` +
        `export default the hook, or name its export with "executor"`,
    );
  }
  throw new Error(
    `exports several LifecycleHooks subclasses (${found.join(", ")}); ` +
      `name the one to use with "executor"`,
  );
}

function instantiate(mod: Hook, msg: Extract<Msg, { type: "init" }>): Hook {
  const [name, target] = pickTarget(mod, msg.exportName);
  const hasOptions = msg.options !== undefined && Object.keys(msg.options).length > 0;
  if (isClass(target)) return new target(msg.options ?? {}, msg.meta);
  if (typeof target === "object" && target !== null) {
    if (hasOptions) {
      throw new Error(`export "${name}" is an object, not a class: "with" options cannot reach it`);
    }
    return target as Hook;
  }
  throw new Error(
    `export "${name}" is ${target === null ? "null" : typeof target}, ` +
      "not a LifecycleHooks class, an instance or an object with point methods",
  );
}

function handledPoints(hook: Hook, points: string[]): string[] {
  if (typeof hook.handles === "function") return points.filter((p) => hook.handles(p) === true);
  return points.filter((p) => typeof hook[p] === "function");
}

/** At most this many method names, each at most this long, go back with the init reply. */
const MAX_METHODS = 64;
const MAX_METHOD_NAME = 64;

/**
 * The hook's own method names: function-valued data properties of the instance and of its
 * prototypes, up to (not including) `LifecycleHooks` (found by name) or `Object.prototype`.
 * Read by descriptor, so no getter of the hook runs; never throws (a proxy's traps may).
 */
function hookMethods(hook: Hook): string[] {
  const found = new Set<string>();
  try {
    for (
      let o: object | null = hook;
      o !== null && o !== Object.prototype && found.size < MAX_METHODS;
      o = Object.getPrototypeOf(o)
    ) {
      const ctor = Object.getOwnPropertyDescriptor(o, "constructor")?.value;
      if (o !== hook && typeof ctor === "function" && ctor.name === "LifecycleHooks") break;
      for (const name of Object.getOwnPropertyNames(o)) {
        if (found.size >= MAX_METHODS) break;
        if (name === "constructor" || name.length > MAX_METHOD_NAME) continue;
        if (typeof Object.getOwnPropertyDescriptor(o, name)?.value === "function") found.add(name);
      }
    }
  } catch { /* what was found so far */ }
  return [...found];
}

// Taken before the hook runs: a hook that replaces `Event.prototype.preventDefault` (or the
// events' `reason`/`error` getters) must not turn its own async errors into worker deaths.
const preventDefault = Event.prototype.preventDefault;
const reasonOf = Object.getOwnPropertyDescriptor(PromiseRejectionEvent.prototype, "reason")?.get;
const errorOf = Object.getOwnPropertyDescriptor(ErrorEvent.prototype, "error")?.get;

/**
 * Deno's own error path reads these through the public prototypes when a worker's error or
 * rejection goes unhandled: fixed before the hook runs, so a hook cannot make its own async
 * errors kill its worker (a restart storm).
 */
function lockEventPaths(): void {
  const fixed: [object, string][] = [
    [Event.prototype, "preventDefault"],
    [Event.prototype, "defaultPrevented"],
    [EventTarget.prototype, "dispatchEvent"],
    [EventTarget.prototype, "addEventListener"],
    [EventTarget.prototype, "removeEventListener"],
    [PromiseRejectionEvent.prototype, "reason"],
    [PromiseRejectionEvent.prototype, "promise"],
    [ErrorEvent.prototype, "error"],
    [ErrorEvent.prototype, "message"],
  ];
  for (const [proto, key] of fixed) {
    const d = Object.getOwnPropertyDescriptor(proto, key);
    if (!d?.configurable) continue;
    const lock = "value" in d ? { writable: false, configurable: false } : { configurable: false };
    Object.defineProperty(proto, key, lock);
  }
}

function read(getter: (() => unknown) | undefined, e: Event): unknown {
  try {
    return getter ? Reflect.apply(getter, e, []) : undefined;
  } catch (err) {
    return err;
  }
}

/** Installs the guards, then serves the host's messages for the hook `loadHook` imports. */
export function start(loadHook: () => Promise<Hook>): void {
  const report = guardWorker();
  lockEventPaths();
  lockDownCode(globalThis as unknown as Record<string, unknown>);
  let hook: Hook | undefined;
  const note = (what: string, err: unknown) => {
    const { error, stack } = describeThrown(err);
    report(`hook: ${what}: ${stack ?? error}\n`);
  };
  scope.addEventListener("unhandledrejection", (e) => {
    Reflect.apply(preventDefault, e, []);
    note("unhandled promise rejection", read(reasonOf, e));
  });
  scope.addEventListener("error", (e) => {
    Reflect.apply(preventDefault, e, []);
    note("uncaught error", read(errorOf, e));
  });
  scope.addEventListener("message", async (e) => {
    const msg = e.data as Msg;
    if (msg.type === "ping") return post({ id: msg.id, ok: true });
    try {
      if (msg.type === "init") {
        setNames(msg.names);
        const answer = (mod: Hook) => {
          answerInit = undefined;
          try {
            hook = instantiate(mod, msg);
            post({
              id: msg.id,
              ok: true,
              handles: handledPoints(hook, msg.points),
              methods: hookMethods(hook),
            });
          } catch (err) {
            fail(msg.id, err);
          }
        };
        answerInit = answer;
        const mod = await loadHook();
        if (answerInit === answer) answer(mod); // not answered by a native hook's wrapper
        return;
      }
      const method = hook?.[msg.point];
      if (typeof method !== "function") throw new Error(`has no method "${msg.point}"`);
      const answer = checkAnswer(await method.call(hook, msg.params));
      post({ id: msg.id, ok: true, answer });
    } catch (err) {
      fail(msg.id, err);
    }
  });
}
