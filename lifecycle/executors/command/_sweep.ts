/**
 * Kills everything a command hook started, not only its process group: a `setsid` (or `nohup
 * setsid`) child leaves the group, so the group kill alone misses it.
 *
 * On Linux the sweep freezes the group (SIGSTOP), then reads the process table and collects
 *
 * - every descendant of the hook's process, by parent links (while the hook's process is still
 *   ours: not yet reaped), and
 * - every process whose environment holds this call's marker, `THE_LOOP_CALL_ID=<random>`
 *   (inherited by whatever the hook starts, even once it is reparented to init after a double
 *   fork), and their descendants;
 *
 * stops each one found, and reads again until a pass finds nothing new (a stopped process cannot
 * fork); then SIGKILLs the group and all of them.
 *
 * NOT contained: a process that has left the tree (reparented to init or a subreaper, i.e. its
 * parent chain is gone) AND runs with a fresh environment (`env -i`, a daemon that rewrites its
 * environment, a job handed to another service: systemd, cron, at, ssh, a container runtime).
 * Only cgroups (or a subreaper) would hold those. Elsewhere than Linux only the group is killed.
 *
 * The-loop's permissions do not let it read `/proc` itself, so the table is read by one `/bin/sh`
 * running `cat` and `grep` (the hook's `--allow-run` is the-loop's own).
 *
 * @module
 */

/** The variable that marks a call's processes. */
export const CALL_MARKER = "THE_LOOP_CALL_ID";

/** A fresh marker value for one call: 128 random bits as hex. */
export function newCallId(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** At most this many table reads per sweep (each stops what it finds). */
const MAX_PASSES = 8;

// stat lines of every process, a separator, then the environ files holding the marker exactly
const SCAN = `cat /proc/[0-9]*/stat 2>/dev/null; echo '--'
grep -l -s -a -z -x -F -e "$1" /proc/[0-9]*/environ 2>/dev/null; exit 0`;

/** One read of the process table: pid → parent pid, and the pids carrying the marker. */
interface Table {
  parents: Map<number, number>;
  marked: number[];
}

/** Parses `SCAN`'s output. Exported for the tests. */
export function parseScan(text: string): Table {
  const parents = new Map<number, number>();
  const marked: number[] = [];
  const [stats, environs = ""] = text.split(/^--$/m);
  for (const line of stats.split("\n")) {
    // "pid (comm) state ppid …": comm may hold spaces and parentheses; it ends at the last ")"
    const close = line.lastIndexOf(")");
    if (close < 0) continue;
    const pid = Number(line.slice(0, line.indexOf(" ")));
    const ppid = Number(line.slice(close + 2).split(" ")[1]);
    if (Number.isInteger(pid) && pid > 0 && Number.isInteger(ppid)) parents.set(pid, ppid);
  }
  for (const m of environs.matchAll(/^\/proc\/(\d+)\/environ$/gm)) marked.push(Number(m[1]));
  return { parents, marked };
}

async function scan(marker: string): Promise<Table | undefined> {
  try {
    const out = await new Deno.Command("/bin/sh", {
      args: ["-c", SCAN, "sh", marker],
      env: { PATH: "/usr/bin:/bin" },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    return parseScan(new TextDecoder().decode(out.stdout));
  } catch {
    return undefined; // no /bin/sh: the group kill is all there is
  }
}

function signal(pid: number, sig: Deno.Signal): void {
  try {
    Deno.kill(pid, sig);
  } catch { /* gone already, or not ours */ }
}

/** What {@linkcode killTree} kills. */
export interface TreeOptions {
  /** The hook's process group (its leader's pid). */
  group: number;
  /**
   * The hook's own pid while it is not yet reaped (its children are found by parent link);
   * `undefined` once it has been (the pid may belong to another process by now).
   */
  root: number | undefined;
  /** The call's `THE_LOOP_CALL_ID` value. */
  callId: string;
}

/** Stops, finds and SIGKILLs the hook's group and every process of its tree (see the module doc). */
export async function killTree(opts: TreeOptions): Promise<void> {
  signal(-opts.group, "SIGSTOP");
  const found = new Set<number>();
  if (opts.root !== undefined) {
    signal(opts.root, "SIGSTOP");
    found.add(opts.root);
  }
  if (Deno.build.os === "linux") {
    const never = new Set([0, 1, Deno.pid]);
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const table = await scan(`${CALL_MARKER}=${opts.callId}`);
      if (!table) break;
      const before = found.size;
      for (const pid of table.marked) found.add(pid);
      for (let grew = true; grew;) {
        grew = false;
        for (const [pid, ppid] of table.parents) {
          if (!found.has(pid) && found.has(ppid)) {
            found.add(pid);
            grew = true;
          }
        }
      }
      for (const pid of never) found.delete(pid);
      for (const pid of found) signal(pid, "SIGSTOP");
      if (found.size === before) break;
    }
  }
  signal(-opts.group, "SIGKILL");
  for (const pid of found) signal(pid, "SIGKILL");
}
