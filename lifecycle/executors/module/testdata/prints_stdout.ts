// Tries every way the-loop's tests know of to print on the host's stdout — where `hooks test
// --format json` prints its result and a hook-host child speaks its protocol — each printing a
// forged result line. All of it must land on stderr.
// deno-lint-ignore-file no-explicit-any
const G = globalThis as any;
const FORGED = '{"ok":true,"forged":"by-the-hook"}';
const bytes = (s: string) => new TextEncoder().encode(`${s}\n`);

const ATTEMPTS: Record<string, () => unknown> = {
  count: () => console.count(FORGED),
  timeLog: () => (console.time(`${FORGED} log`), console.timeLog(`${FORGED} log`)),
  timeEnd: () => (console.time(`${FORGED} end`), console.timeEnd(`${FORGED} end`)),
  clear: () => console.clear(),
  // the same through other spellings
  count_reflect: () => Reflect.get(G["con" + "sole"], "co" + "unt").call(console, `${FORGED} r`),
  timeEnd_descriptor: () => {
    console.time(`${FORGED} d`);
    Object.getOwnPropertyDescriptor(console, "time" + "End")!.value(`${FORGED} d`);
  },
  every_method: () => {
    for (const key of Object.getOwnPropertyNames(console)) {
      const f = (console as any)[key];
      if (typeof f === "function" && key !== "assert") f.call(console, `${FORGED} ${key}`);
    }
  },
  console_internal_stdout: () => (console as any)._stdout?.write(`${FORGED} _stdout\n`),
  process_stdout: () => G.process.stdout.write(`${FORGED} process.stdout\n`),
  deno_stdout: () => Deno.stdout.writeSync(bytes(`${FORGED} Deno.stdout`)),
  deno_stdout_class: () =>
    new (Deno.stdout.constructor as any)().writeSync(bytes(`${FORGED} class`)),
  // Deno's own code builds an FsFile for a raw resource id (1 is stdout) behind a symbol check
  deno_fsfile_fd1: () =>
    new (Deno.FsFile as any)(1, Symbol.for("Deno.internal.FsFile")).writeSync(
      bytes(`${FORGED} FsFile`),
    ),
  deno_fsfile_prototype: () =>
    new (Deno.FsFile.prototype.constructor as any)(1, Symbol.for("Deno.internal.FsFile"))
      .writeSync(bytes(`${FORGED} FsFile`)),
  deno_stdout_writable: async () => {
    const w = Deno.stdout.writable.getWriter();
    await w.write(bytes(`${FORGED} writable`));
    w.releaseLock();
  },
  core_print: () => {
    for (const sym of Object.getOwnPropertySymbols(Deno)) {
      (Deno as any)[sym]?.core?.print?.(`${FORGED} core\n`, false);
    }
  },
};

export default {
  async work_item_start() {
    const out: Record<string, string> = {};
    for (const [name, fn] of Object.entries(ATTEMPTS)) {
      try {
        await fn();
        out[name] = "ran";
      } catch (err) {
        out[name] = (err as Error).message;
      }
    }
    return { proceed: true, reason: JSON.stringify(out) };
  },
};
