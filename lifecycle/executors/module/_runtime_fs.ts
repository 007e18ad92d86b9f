/**
 * Holds a hook's `read` and `write` grants to real paths, inside its worker. Deno checks a
 * path grant against the path as written and then lets the OS follow symlinks, so with
 * `read: ["./data"]` a link planted in `data/` would read `/etc/passwd`. Here every
 * path-taking API of the hook's `Deno` (and `fetch` of a `file:` URL, and unix-socket paths)
 * first asks the host (`_fs_gate.ts`, synchronously, over a shared buffer) where the path
 * really leads and whether that lies inside a granted real path of the kind the call needs;
 * the call then runs on that real path, or fails with `Deno.errors.NotCapable` naming the
 * path, where it leads and the grants. A kind granted in full (`true`) or not at all is left
 * to Deno: there is nothing a link could widen. Part of the worker runtime: embedded as text
 * and bundled ahead of the hook.
 *
 * What this file uses when a hook calls it is taken when it is installed, before the hook's
 * first line: a hook that patches `String.prototype`, `Atomics`, `URL` or `Promise` changes
 * nothing here, and a path object or options object is read once (what the call gets is what
 * was checked).
 *
 * Not contained: a race. The call gets the real path, which held no link when it was checked;
 * another process that can write inside the grant and swaps a directory or file there for a
 * link between the check and the call still wins. And a hard link is the same file under a
 * second name: nothing to resolve (a hook cannot make one to a file it may not read and write).
 *
 * Wire format (UTF-8 after `HEADER`): request `kinds\0follow\0form\0op\0value` — kinds `r`,
 * `w` or `rw` (only those granted by path), follow `1`/`0`, form `p` (a path), `u` (a file URL,
 * answered as a path), `f` (a fetch URL, answered as a URL) or `t` (the temp directory); reply
 * `tag\0value` — `ok` (the real path to use), `pass` (outside the grants as written: Deno
 * refuses it with its own message), `refused` or `bad` (the message of a `NotCapable` or
 * `TypeError`).
 *
 * @module
 */

// deno-lint-ignore no-explicit-any
type Loose = Record<PropertyKey, any>;

/** The gate's shared buffer: int32 slot 0 is its state, slot 1 the payload's byte length. */
export const GATE = Object.freeze({
  IDLE: 0,
  REQUEST: 1,
  REPLY: 2,
  CLOSED: 3,
  /** Bytes before the payload. */
  HEADER: 8,
  /** The buffer's size in bytes. */
  SIZE: 64 * 1024,
  /** How long a check waits for the host before it fails. */
  WAIT_MS: 10_000,
});

/** How much of a kind is granted: all of it, some paths, or nothing. */
export type Scope = "all" | "some" | "none";

/** What the host's init message carries as `fs` (see `_fs_gate.ts`). */
export interface FsGateInit {
  read: Scope;
  write: Scope;
  /** Present when a scope is `"some"`. */
  buffer?: SharedArrayBuffer;
}

/** `r`, `w` or `rw`: the grants a call needs on a path. */
type Kinds = "r" | "w" | "rw";

type Fn = (...args: unknown[]) => unknown;

/** First-argument path APIs (and their `Sync` twins): kinds, and whether a last link is followed. */
const SIMPLE: readonly (readonly [string, Kinds, boolean])[] = [
  ["readFile", "r", true],
  ["readTextFile", "r", true],
  ["stat", "r", true],
  ["realPath", "r", true],
  ["lstat", "r", false],
  ["readLink", "r", false],
  ["create", "w", true],
  ["truncate", "w", true],
  ["chmod", "w", true],
  ["chown", "w", true],
  ["utime", "w", true],
  ["mkdir", "w", false],
  ["remove", "w", false],
];

/** Two-path APIs: each path's kinds and follow, as Deno checks them. */
const PAIRS: readonly (readonly [string, Kinds, boolean, Kinds, boolean])[] = [
  ["copyFile", "r", true, "w", true],
  ["rename", "rw", false, "w", false],
  ["link", "rw", false, "rw", false],
];

const OPEN_KEYS = ["read", "write", "append", "create", "createNew", "truncate", "mode"];
const WRITE_KEYS = ["append", "create", "createNew", "mode", "signal"];

/**
 * Wraps the path-taking APIs on `view` (the hook's `Deno`, not yet frozen) and the global
 * `fetch` of `g`, calling `real`'s functions. The grants arrive with the host's first `init`
 * message; until then every checked call fails.
 */
export function guardFs(view: Loose, real: Loose, g: Loose): void {
  const apply = Reflect.apply;
  // uncurry(f)(self, ...args) is f.call(self, ...args), without looking `call` up again
  // deno-lint-ignore no-explicit-any
  const uncurry = Function.prototype.bind.bind(Function.prototype.call) as (fn: unknown) => any;
  const { defineProperty, getOwnPropertyDescriptor, getPrototypeOf, setPrototypeOf, hasOwn } =
    Object;
  const isArray = Array.isArray;
  const indexOf = uncurry(String.prototype.indexOf) as (s: string, x: string) => number;
  const slice = uncurry(String.prototype.slice) as (s: string, a: number, b?: number) => string;
  const typed = getPrototypeOf(Uint8Array.prototype);
  const setBytes = uncurry(typed.set);
  const subarray = uncurry(typed.subarray);
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const encode = uncurry(TextEncoder.prototype.encode) as (e: unknown, s: string) => Uint8Array;
  const decode = uncurry(TextDecoder.prototype.decode) as (d: unknown, b: Uint8Array) => string;
  const { load, store, notify, wait } = Atomics;
  const U8 = Uint8Array;
  const I32 = Int32Array;
  const URLCtor = URL;
  const getter = (proto: object, key: string) => getOwnPropertyDescriptor(proto, key)!.get!;
  const hrefOf = getter(URL.prototype, "href");
  const protocolOf = getter(URL.prototype, "protocol");
  const requestUrlOf = getter(Request.prototype, "url");
  const NotCapable = real.errors.NotCapable as new (m: string) => Error;
  const TypeErr = TypeError;
  const reject = Promise.reject.bind(Promise);
  const asyncIterator = Symbol.asyncIterator;
  const addListener = g.addEventListener.bind(g);
  const removeListener = g.removeEventListener.bind(g);

  let scopes: { read: Scope; write: Scope } | undefined;
  let i32: Int32Array | undefined;
  let u8: Uint8Array | undefined;
  let broken: string | undefined;

  const onInit = (e: { data?: { type?: string; fs?: FsGateInit } }) => {
    const data = e.data;
    if (data?.type !== "init") return;
    removeListener("message", onInit); // once: a message the hook dispatches later is not read
    const fs = data.fs;
    const scope = (s: unknown): s is Scope => s === "all" || s === "some" || s === "none";
    if (!fs || !scope(fs.read) || !scope(fs.write)) return;
    if ((fs.read === "some" || fs.write === "some") && !(fs.buffer instanceof SharedArrayBuffer)) {
      return;
    }
    if (fs.buffer) {
      i32 = new I32(fs.buffer, 0, 2);
      u8 = new U8(fs.buffer);
    }
    scopes = { read: fs.read, write: fs.write };
  };
  addListener("message", onInit);

  /** Asks the host; `{tag, value}` with tag ok | pass | refused | bad. */
  function ask(kinds: string, follow: boolean, form: string, op: string, value: string) {
    if (broken) throw new NotCapable(`${op}: ${broken}`);
    if (!i32 || !u8) throw new NotCapable(`${op}: the-loop set up no path checks for this hook`);
    if (indexOf(value, "\0") !== -1) throw new TypeErr(`${op}: a path cannot contain NUL`);
    const bytes = encode(encoder, `${kinds}\0${follow ? 1 : 0}\0${form}\0${op}\0${value}`);
    if (bytes.length > GATE.SIZE - GATE.HEADER) {
      throw new NotCapable(`${op}: the path is too long to check (${bytes.length} bytes)`);
    }
    setBytes(u8, bytes, GATE.HEADER);
    store(i32, 1, bytes.length);
    store(i32, 0, GATE.REQUEST);
    notify(i32, 0);
    wait(i32, 0, GATE.REQUEST, GATE.WAIT_MS);
    const state = load(i32, 0);
    if (state !== GATE.REPLY) {
      broken = state === GATE.CLOSED
        ? "the hook is being closed"
        : `the-loop did not answer a path check within ${GATE.WAIT_MS} ms; the hook's file ` +
          "access stays off until its worker is restarted";
      throw new NotCapable(`${op}: ${broken}`);
    }
    const length = load(i32, 1);
    const copy = new U8(length);
    setBytes(copy, subarray(u8, GATE.HEADER, GATE.HEADER + length));
    store(i32, 0, GATE.IDLE);
    const text = decode(decoder, copy);
    const cut = indexOf(text, "\0");
    return { tag: slice(text, 0, cut), value: slice(text, cut + 1) };
  }

  function tryGet(get: unknown, obj: unknown): string | undefined {
    try {
      return apply(get as () => string, obj, []);
    } catch {
      return undefined;
    }
  }

  /**
   * What the call gets instead of `path`: the real path, or (for a path outside the lexical
   * grants, which Deno refuses) the path as written, resolved. Throws when refused.
   */
  function check(op: string, path: unknown, kinds: Kinds, follow: boolean, form?: string) {
    if (!scopes) throw new NotCapable(`${op}: the-loop set up no path checks for this hook`);
    const r = kinds !== "w";
    const w = kinds !== "r";
    if ((r && scopes.read === "none") || (w && scopes.write === "none")) return path;
    const some = (r && scopes.read === "some" ? "r" : "") +
      (w && scopes.write === "some" ? "w" : "");
    if (some === "") return path;
    let value: string;
    if (form === "t") value = "";
    else if (typeof path === "string") value = path;
    else {
      const href = tryGet(hrefOf, path);
      if (href === undefined) throw new TypeErr(`${op}: a path must be a string or a file: URL`);
      value = href;
      form ??= "u";
    }
    const answer = ask(some, follow, form ?? "p", op, value);
    if (answer.tag === "ok" || answer.tag === "pass") return answer.value;
    if (answer.tag === "bad") throw new TypeErr(answer.value);
    throw new NotCapable(answer.value);
  }

  /** Sets `o[key]` as an own data property (an inherited setter or getter has no say). */
  function put(o: Loose, key: string, value: unknown): void {
    defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
  }

  /**
   * A copy of the options `obj` (same prototype) whose `keys` are own data properties, each
   * read once: Deno reads the copy, so it sees what was checked.
   */
  function snapshot(obj: unknown, keys: readonly string[]): Loose | undefined {
    if (typeof obj !== "object" || obj === null) return undefined;
    const o: Loose = { ...obj };
    setPrototypeOf(o, getPrototypeOf(obj));
    for (let i = 0; i < keys.length; i++) put(o, keys[i], o[keys[i]]);
    return o;
  }

  /**
   * Installs `view[name]` (and `view[name + "Sync"]`) as `make(original, "Deno.<key>()")`. An
   * async one (`name` unless `sync`) returns a rejected promise where the check throws, as
   * Deno's own would.
   */
  function wrap(name: string, make: (orig: Fn, op: string) => Fn, sync = false): void {
    for (const [key, isAsync] of [[name, !sync], [`${name}Sync`, false]] as const) {
      const orig = view[key];
      if (typeof orig !== "function") continue;
      const inner = make(orig, `Deno.${key}()`);
      view[key] = isAsync
        ? function (this: unknown, a: unknown, b: unknown, c: unknown) {
          try {
            return apply(inner, this, [a, b, c]);
          } catch (err) {
            return reject(err);
          }
        }
        : inner;
    }
  }

  for (const [name, kinds, follow] of SIMPLE) {
    wrap(name, (orig, op) => (a, b, c) => apply(orig, real, [check(op, a, kinds, follow), b, c]));
  }
  for (const [name, kindsA, followA, kindsB, followB] of PAIRS) {
    wrap(
      name,
      (orig, op) => (a, b, c) =>
        apply(orig, real, [check(op, a, kindsA, followA), check(op, b, kindsB, followB), c]),
    );
  }
  // The target is text stored in the link, opened by nothing here: what reads or writes
  // through the link later is checked then. (Deno creates links only for unscoped grants.)
  wrap("symlink", (orig, op) => (a, b, c) => apply(orig, real, [a, check(op, b, "w", false), c]));
  wrap("open", (orig, op) => (path, options) => {
    const o = snapshot(options, OPEN_KEYS);
    const w = o !== undefined && !!(o.write || o.append);
    const r = o === undefined ? options === undefined : !!o.read;
    const kinds: Kinds = r && w ? "rw" : w ? "w" : "r";
    // O_EXCL never follows a last link: check (and open) the link's own path
    return apply(orig, real, [check(op, path, kinds, !o?.createNew), o ?? options]);
  });
  for (const name of ["writeFile", "writeTextFile"]) {
    wrap(name, (orig, op) => (path, data, options) => {
      const o = snapshot(options, WRITE_KEYS);
      return apply(orig, real, [check(op, path, "w", !o?.createNew), data, o ?? options]);
    });
  }
  for (const name of ["makeTempDir", "makeTempFile"]) {
    wrap(name, (orig, op) => (options) => {
      const o = snapshot(options ?? {}, ["dir", "prefix", "suffix"]) ?? {};
      const dir = o.dir === undefined
        ? check(op, undefined, "w", true, "t") // the system's temp directory
        : check(op, o.dir, "w", true);
      put(o, "dir", dir);
      return apply(orig, real, [o]);
    });
  }
  // Deno.readDir() returns its iterable at once and reports errors when it is iterated
  wrap("readDir", (orig, op) => (path) => apply(orig, real, [check(op, path, "r", true)]), true);
  const readDir = view.readDir as Fn | undefined;
  if (readDir) {
    view.readDir = function (path: unknown) {
      try {
        return apply(readDir, view, [path]);
      } catch (err) {
        return { [asyncIterator]: () => ({ next: () => reject(err) }) };
      }
    };
  }
  wrap("watchFs", (orig, op) => (paths, options) => {
    let arg: unknown;
    if (isArray(paths)) {
      const list: unknown[] = [];
      const n = paths.length;
      for (let i = 0; i < n; i++) {
        const value = check(op, paths[i], "r", true);
        defineProperty(list, i, { value, writable: true, enumerable: true, configurable: true });
      }
      arg = list;
    } else {
      arg = check(op, paths, "r", true);
    }
    return apply(orig, real, [arg, options]);
  }, true);
  // unix sockets: Deno asks for read and write on the socket's path (and net)
  const sockets: [name: string, follow: boolean, sync: boolean][] = [
    ["connect", true, false],
    ["listen", false, true], // bind() never follows a last link
    ["listenDatagram", false, true],
  ];
  for (const [name, follow, sync] of sockets) {
    wrap(name, (orig, op) => (options) => {
      const o = snapshot(options, ["transport", "path"]);
      if (o && (o.transport === "unix" || o.transport === "unixpacket")) {
        put(o, "path", check(op, o.path, "rw", follow));
      }
      return apply(orig, real, [o ?? options]);
    }, sync);
  }
  wrap("createHttpClient", (orig, op) => (options) => {
    const o = snapshot(options, ["proxy"]);
    const proxy = snapshot(o?.proxy, ["transport", "path"]);
    if (o && proxy?.transport === "unix") {
      put(proxy, "path", check(op, proxy.path, "rw", true));
      put(o, "proxy", proxy);
    }
    return apply(orig, real, [o ?? options]);
  }, true);
  if (typeof view.serve === "function") {
    const orig = view.serve as Fn;
    view.serve = function serve(a: unknown, b: unknown) {
      if (typeof a !== "object" || a === null) return apply(orig, real, [a, b]);
      const o: Loose = { ...a }; // Deno serves on a socket path only for an own `path`
      setPrototypeOf(o, getPrototypeOf(a));
      if (hasOwn(o, "path")) put(o, "path", check("Deno.serve()", o.path, "rw", false));
      return apply(orig, real, [o, b]);
    };
  }
  const fetchOrig = g.fetch;
  const fetch = function fetch(input: unknown, init: unknown) {
    let arg = input;
    try {
      const fromRequest = tryGet(requestUrlOf, input); // a Request's URL cannot change
      const url = fromRequest ?? tryGet(hrefOf, input) ??
        (typeof input === "string" ? input : `${input}`);
      if (fromRequest === undefined) arg = url; // read once: what fetch gets is what was checked
      let parsed: URL | undefined;
      try {
        parsed = new URLCtor(url);
      } catch { /* relative or malformed: not a file URL; fetch says what is wrong */ }
      if (parsed && apply(protocolOf, parsed, []) === "file:") {
        arg = check("fetch()", url, "r", true, "f");
      }
    } catch (err) {
      return reject(err);
    }
    return apply(fetchOrig, g, [arg, init]);
  };
  defineProperty(g, "fetch", {
    value: fetch,
    writable: false,
    configurable: false,
    enumerable: true,
  });
}
