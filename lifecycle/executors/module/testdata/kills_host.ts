// Tries every spelling the-loop's tests know of for signalling the-loop's own process: SIGKILL
// would end it, SIGSTOP (19) would freeze it. `ctx.actor` is the pid to aim at, as the test
// knows it (a hook that cannot read its pid could still guess it). Answers what each did.
// deno-lint-ignore-file no-explicit-any
const G = globalThis as any;
const proc = () => G["pro" + "cess"];
const deno = () => G["De" + "no"];

const ATTACKS: Record<string, (pid: number) => unknown> = {
  // process._kill, the Node-compat internal behind process.kill
  node_internal_kill: (pid) => proc()._kill(pid, 9),
  node_internal_kill_reflect: (pid) => Reflect.get(proc(), "_ki" + "ll").call(proc(), pid, 9),
  node_internal_kill_prototype_walk: (pid) => {
    for (let o = proc(); o; o = Object.getPrototypeOf(o)) {
      const f = Object.getOwnPropertyDescriptor(o, "_kill")?.value;
      if (typeof f === "function") return f.call(proc(), pid, 19);
    }
    return "no _kill anywhere";
  },
  node_global_getter: (pid) => {
    const get = Object.getOwnPropertyDescriptor(globalThis, "process")?.get;
    return get ? get.call(globalThis)._kill(pid, 9) : "no getter";
  },
  node_kill_sigstop: (pid) => proc().kill(pid, 19),
  node_kill_descriptor: (pid) => Object.getOwnPropertyDescriptor(proc(), "kill")?.value(pid, 9),
  deno_kill: (pid) => deno().kill(pid, "SIGKILL"),
  deno_kill_reflect_sigstop: (pid) => Reflect.get(deno(), "kill")(pid, "SIGSTOP"),
  // a pid past 2^32 wraps round to the same pid in the op
  deno_kill_wrapped_pid: (pid) => deno().kill(pid + 2 ** 32, "SIGSTOP"),
  deno_kill_group: () => deno().kill(0, "SIGKILL"),
  deno_internal_ops: (pid) => {
    for (const sym of Object.getOwnPropertySymbols(deno())) {
      const ops = deno()[sym]?.core?.ops;
      if (ops?.op_kill) return ops.op_kill(pid, "SIGKILL", "kill");
    }
    return "no internals";
  },
};

function attempt(fn: () => unknown): string {
  try {
    const r = fn();
    return typeof r === "string" ? r : "sent";
  } catch (err) {
    return (err as Error).message;
  }
}

export default {
  work_item_start(ctx: { actor: string }) {
    const pid = Number(ctx.actor);
    // the pid the hook can read itself, when it can (before the guard: the-loop's, or under
    // isolation: process, the hook host's)
    const own = G.Deno?.pid ?? proc()?.pid;
    const out: Record<string, string> = {};
    for (const [name, fn] of Object.entries(ATTACKS)) {
      out[name] = attempt(() => fn(pid));
      if (typeof own === "number" && own !== pid) out[`${name}@own`] = attempt(() => fn(own));
    }
    return { proceed: true, reason: JSON.stringify(out) };
  },
};
