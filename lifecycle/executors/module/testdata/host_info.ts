// Tries to read (or change) what belongs to the-loop's process: its argv, working directory,
// executable, pid and title. Answers what each gave: `ok:<JSON>` or `threw:<message>`.
// deno-lint-ignore-file no-explicit-any
const G = globalThis as any;
const proc = () => G["pro" + "cess"];
const deno = () => G["De" + "no"];

const READS: Record<string, () => unknown> = {
  deno_cwd: () => Deno.cwd(),
  deno_exec_path: () => Deno.execPath(),
  deno_args: () => Deno.args,
  deno_pid: () => Deno.pid,
  deno_ppid: () => Deno.ppid,
  node_cwd: () => proc().cwd(),
  node_exec_path: () => proc().execPath,
  node_argv0: () => proc().argv0,
  node_argv: () => proc().argv,
  node_exec_argv: () => proc().execArgv,
  node_pid: () => proc().pid,
  node_ppid: () => proc().ppid,
  node_title_set: () => {
    proc().title = "owned-by-a-hook";
    return proc().title;
  },
  // the same through other spellings
  cwd_reflect: () => Reflect.get(deno(), "c" + "wd").call(deno()),
  exec_path_destructured: () => {
    const { execPath } = deno();
    return execPath();
  },
  pid_descriptor: () => {
    const d = Object.getOwnPropertyDescriptor(deno(), "pid");
    return d?.get ? d.get.call(deno()) : d?.value;
  },
  process_getter_pid: () => Object.getOwnPropertyDescriptor(globalThis, "process")?.get?.()?.pid,
  env_pwd: () => proc().env?.PWD,
  main_module: () => deno().mainModule,
};

export default {
  work_item_start() {
    const out: Record<string, string> = {};
    for (const [name, read] of Object.entries(READS)) {
      try {
        out[name] = `ok:${JSON.stringify(read()) ?? "undefined"}`;
      } catch (err) {
        out[name] = `threw:${(err as Error).message}`;
      }
    }
    return { reason: JSON.stringify(out) };
  },
};
