/**
 * The `Deno` a hook sees: an allowlist, not the real namespace minus a denylist. It holds the
 * APIs a hook's permissions govern (files, network, environment, subprocesses), a few harmless
 * ones (errors, build, version, inspect, memoryUsage, timers' ref/unref) and stand-ins that
 * refuse what would act on, or tell about, the-loop's process: exit, cwd, execPath, chdir,
 * umask, signal listeners, stdin, permission prompts; `kill` refuses the-loop's own pid, its
 * parent and process groups. Everything else — `pid`, `ppid`, `args`, `exitCode`, the internal
 * symbol and its ops, ffi, test/bench, telemetry, `sys` information — is absent. Part of the
 * worker runtime: embedded as text and bundled ahead of the hook.
 *
 * @module
 */
import {
  guardedKill,
  HOST,
  type Host,
  type Loose,
  refused,
  refusedGetter,
  replace,
} from "./_runtime_refusals.ts";

/** Taken from the real namespace as they are: what the hook's permissions govern. */
const FILES = [
  "readFile",
  "readFileSync",
  "readTextFile",
  "readTextFileSync",
  "writeFile",
  "writeFileSync",
  "writeTextFile",
  "writeTextFileSync",
  "open",
  "openSync",
  "create",
  "createSync",
  "FsFile",
  "SeekMode",
  "stat",
  "statSync",
  "lstat",
  "lstatSync",
  "readDir",
  "readDirSync",
  "mkdir",
  "mkdirSync",
  "remove",
  "removeSync",
  "rename",
  "renameSync",
  "copyFile",
  "copyFileSync",
  "realPath",
  "realPathSync",
  "readLink",
  "readLinkSync",
  "makeTempDir",
  "makeTempDirSync",
  "makeTempFile",
  "makeTempFileSync",
  "truncate",
  "truncateSync",
  "chmod",
  "chmodSync",
  "chown",
  "chownSync",
  "symlink",
  "symlinkSync",
  "link",
  "linkSync",
  "utime",
  "utimeSync",
  "watchFs",
];
const NETWORK = [
  "connect",
  "connectTls",
  "listen",
  "listenTls",
  "startTls",
  "resolveDns",
  "serve",
  "upgradeWebSocket",
  "createHttpClient",
  "HttpClient",
];
const OTHER = [
  "env",
  "Command",
  "ChildProcess",
  "errors",
  "build",
  "version",
  "inspect",
  "noColor",
  "memoryUsage",
  "refTimer",
  "unrefTimer",
  "PermissionStatus",
];

/** The names {@linkcode denoView} copies from the real namespace (when present). */
export const DENO_ALLOWED: readonly string[] = [...FILES, ...NETWORK, ...OTHER];

const PATHS = "the-loop's working directory is not the hook's: resolve paths with " +
  "this.resolvePath() (relative to the config file's directory) or use absolute ones";

/**
 * A stand-in for `Deno.FsFile` that cannot be constructed (the real one takes a raw resource id
 * behind a symbol check; `1` is the-loop's stdout). `instanceof` still works: it shares the
 * real class's prototype, whose `constructor` now points at the stand-in.
 */
function fsFileStandIn(real: Loose): unknown {
  const stand = refused("new Deno.FsFile()", "open a file with Deno.open(), as the grants allow");
  Object.defineProperty(stand, "name", { value: "FsFile" });
  Object.defineProperty(stand, "prototype", { value: real.prototype, writable: false });
  replace(real.prototype, "constructor", stand);
  return stand;
}

function permissionsView(real: Loose): Loose {
  const ask = "grant it in the hook's declaration (permissions)";
  return Object.freeze({
    query: (desc: unknown) => real.query(desc),
    querySync: (desc: unknown) => real.querySync(desc),
    revoke: (desc: unknown) => real.revoke(desc),
    revokeSync: (desc: unknown) => real.revokeSync(desc),
    request: refused("Deno.permissions.request()", ask),
    requestSync: refused("Deno.permissions.requestSync()", ask),
  });
}

/**
 * A new, unfrozen `Deno` for the hook, built from `host.deno`. The caller may wrap its members
 * further, then freezes it and installs it as the global `Deno`.
 */
export function denoView(host: Host): Loose {
  const d = host.deno;
  const view: Loose = {};
  for (const key of DENO_ALLOWED) {
    let value: unknown;
    try {
      value = d[key];
    } catch {
      continue; // an API this build has behind a flag
    }
    if (value !== undefined) view[key] = value;
  }
  if (typeof view.FsFile === "function") view.FsFile = fsFileStandIn(view.FsFile);
  view.stderr = d.stderr;
  // In a hook-host child stdout is the protocol channel; everywhere it is the-loop's output.
  view.stdout = d.stderr;
  refusedGetter(view, "stdin", "Deno.stdin", "a hook's input is the context it is called with");
  view.permissions = permissionsView(d.permissions);
  view.kill = guardedKill("Deno.kill()", host, (pid, sig) => d.kill(pid, sig));
  view.exit = refused("Deno.exit()", "return or throw to end the call");
  view.cwd = refused("Deno.cwd()", PATHS);
  view.chdir = refused("Deno.chdir()", HOST);
  view.execPath = refused("Deno.execPath()", "the-loop's executable is not the hook's to know");
  view.umask = refused("Deno.umask()", HOST);
  view.addSignalListener = refused("Deno.addSignalListener()", HOST);
  view.removeSignalListener = refused("Deno.removeSignalListener()", HOST);
  return view;
}
