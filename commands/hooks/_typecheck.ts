/**
 * `hooks validate`'s type check: module hooks are checked against the SDK they are bundled
 * with, by `deno check`, so a type error is found before a daemon runs the hook. The embedded
 * SDK is written to a temp dir with a `deno.json` mapping `@the-loop/hooks` onto it, and ONE
 * `deno check` runs over every hook file. `deno` is looked up on `PATH` (a compiled the-loop is
 * not deno); without it the check is skipped with a note, never a failure.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeFileAtomic } from "../../state/atomic.ts";
import { SDK_ENTRY } from "../../lifecycle/mod.ts";
import { SDK_DIR_NAME, writeSdk } from "./_sdk_files.ts";

/** One diagnostic `deno check` printed, located. */
export interface Diagnostic {
  file: string;
  line: number;
  col: number;
  /** `TS2322`, or `error` for a module graph error. */
  code: string;
  message: string;
}

/** What {@linkcode typecheck} found, or why it did not run. */
export type TypecheckResult =
  | {
    ran: true;
    deno: string;
    /** How many files were checked. */
    files: number;
    ms: number;
    diagnostics: Diagnostic[];
    note?: string;
  }
  | { ran: false; note: string };

/** Where to get deno, said when it is missing. */
const GET_DENO = "install it with 'npm install -g deno' or see https://deno.land";

/** The `deno` executable on `path` (a `PATH` value), or undefined. */
function findDeno(path: string | undefined): string | undefined {
  const names = Deno.build.os === "windows" ? ["deno.exe", "deno.cmd"] : ["deno"];
  const sep = Deno.build.os === "windows" ? ";" : ":";
  for (const dir of (path ?? "").split(sep)) {
    if (!dir) continue;
    for (const name of names) {
      try {
        const info = Deno.statSync(join(dir, name));
        if (info.isFile && (info.mode === null || (info.mode & 0o111) !== 0)) {
          return join(dir, name);
        }
      } catch { /* not here */ }
    }
  }
  return undefined;
}

const HEADER = /^(?:(TS\d+) \[ERROR\]|error): (.*)$/;
const AT = /^ {4}at (file:\/\/\S+?):(\d+):(\d+)\s*$/;
const GRAPH = /^error: (.*?)\s+at (file:\/\/\S+?):(\d+):(\d+)\s*$/;

/** The located diagnostics in `deno check`'s output (related information left out). */
export function parseDiagnostics(text: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  let open: { code: string; message: string } | undefined;
  for (const line of text.split("\n")) {
    const header = !GRAPH.test(line) && HEADER.exec(line);
    if (header) {
      open = { code: header[1] ?? "error", message: header[2] };
      continue;
    }
    const at = open && AT.exec(line);
    if (open && at) {
      out.push({ file: fileURLToPath(at[1]), line: +at[2], col: +at[3], ...open });
      open = undefined;
      continue;
    }
    const graph = GRAPH.exec(line);
    if (graph) {
      out.push({
        file: fileURLToPath(graph[2]),
        line: +graph[3],
        col: +graph[4],
        code: "error",
        message: graph[1],
      });
    }
  }
  return out;
}

/** Options for {@linkcode typecheck}. */
export interface TypecheckOptions {
  /** Reads an environment variable (`PATH`). */
  env: (name: string) => string | undefined;
}

/** Type-checks `files` (absolute) against the embedded SDK with one `deno check`. */
export async function typecheck(files: string[], opts: TypecheckOptions): Promise<TypecheckResult> {
  const deno = findDeno(opts.env("PATH"));
  if (!deno) {
    return {
      ran: false,
      note: `module hooks were not type-checked: no deno on PATH (${GET_DENO}); ` +
        "--no-typecheck skips the check",
    };
  }
  const start = performance.now();
  const dir = await Deno.makeTempDir({ prefix: "the-loop-typecheck-" });
  try {
    // written first, so writeSdk keeps it: no node_modules, no lock file next to the user's files
    await writeFileAtomic(
      join(dir, "deno.json"),
      JSON.stringify({
        imports: { "@the-loop/hooks": `./${SDK_DIR_NAME}/${SDK_ENTRY}` },
        nodeModulesDir: "none",
      }) + "\n",
    );
    await writeSdk(dir);
    const out = await new Deno.Command(deno, {
      args: ["check", "--config", join(dir, "deno.json"), "--no-lock", "--quiet", ...files],
      env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    const text = dec.decode(out.stdout) + "\n" + dec.decode(out.stderr);
    const diagnostics = parseDiagnostics(text);
    const ms = Math.round(performance.now() - start);
    if (!out.success && diagnostics.length === 0) {
      const why = text.split("\n").map((l) => l.trim()).filter((l) => l && !/^Stack|^\d+:/.test(l));
      return {
        ran: true,
        deno,
        files: files.length,
        ms,
        diagnostics,
        note: `deno check failed without a located error: ${why.slice(0, 3).join(" ")}`,
      };
    }
    return { ran: true, deno, files: files.length, ms, diagnostics };
  } catch (err) {
    return { ran: false, note: `module hooks were not type-checked: ${deno}: ${err}` };
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
