// Does one file operation named by the context; answers `ok:<result>` or
// `denied:<error name>: <message>`.
async function attempt(fn: () => unknown): Promise<string> {
  try {
    return `ok:${String(await fn())}`;
  } catch (err) {
    return `denied:${(err as Error).name}: ${(err as Error).message}`;
  }
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

async function names(path: string | URL): Promise<string> {
  const out: string[] = [];
  for await (const e of Deno.readDir(path)) out.push(e.name);
  return out.sort().join(",");
}

// deno-lint-ignore no-explicit-any
type Loose = any;

/**
 * Reads `p` after patching what a guard might call at run time, and after forging a second
 * `init` message that grants everything; puts it all back after.
 */
async function poisoned(p: string): Promise<string> {
  const S = String.prototype as Loose;
  const A = Atomics as Loose;
  const saved = [S.indexOf, S.slice, A.wait, A.load, TextDecoder.prototype.decode];
  try {
    S.indexOf = () => -1;
    S.slice = () => "ok";
    A.wait = () => "ok";
    A.load = () => 2;
    TextDecoder.prototype.decode = () => "ok\0/";
    const fs = { read: "all", write: "all" };
    dispatchEvent(new MessageEvent("message", { data: { type: "init", fs } }));
    return await Deno.readTextFile(p);
  } finally {
    [S.indexOf, S.slice, A.wait, A.load, TextDecoder.prototype.decode] = saved;
  }
}

const OPS: Record<string, (p: string, to: string) => unknown> = {
  poisoned,
  read: (p) => Deno.readTextFile(p),
  readSync: (p) => Deno.readTextFileSync(p),
  readBytes: async (p) => text(await Deno.readFile(p)),
  readUrl: (p) => Deno.readTextFile(new URL(`file://${p}`)),
  openSync: (p) => {
    using f = Deno.openSync(p);
    const buf = new Uint8Array(64);
    return text(buf.subarray(0, f.readSync(buf) ?? 0));
  },
  fetch: async (p) => (await fetch(`file://${p}`)).text(),
  fetchUrl: async (p) => (await fetch(new URL(`file://${p}`))).text(),
  readDir: (p) => names(p),
  readDirSync: (p) => [...Deno.readDirSync(p)].map((e) => e.name).sort().join(","),
  stat: async (p) => (await Deno.stat(p)).size,
  lstat: async (p) => (await Deno.lstat(p)).isSymlink,
  readLink: (p) => Deno.readLink(p),
  realPath: (p) => Deno.realPath(p),
  copyFrom: async (p, to) => {
    await Deno.copyFile(p, to);
    return Deno.readTextFile(to);
  },
  append: (p) => Deno.writeTextFile(p, "+hook", { append: true }),
  appendSync: (p) => Deno.writeTextFileSync(p, "+hook", { append: true }),
  write: (p) => Deno.writeTextFile(p, "hook"),
  openAppend: async (p) => {
    using f = await Deno.open(p, { append: true });
    return await f.write(new TextEncoder().encode("+hook"));
  },
  openWriteSync: (p) => {
    using f = Deno.openSync(p, { write: true, create: true });
    return f.writeSync(new TextEncoder().encode("hook"));
  },
  appendUrl: (p) => Deno.writeTextFile(new URL(`file://${p}`), "+hook", { append: true }),
  truncate: (p) => Deno.truncate(p),
  mkdir: (p) => Deno.mkdir(p, { recursive: true }),
  remove: (p) => Deno.remove(p),
  tempIn: (p) => Deno.makeTempFile({ dir: p }),
  connect: async (p) => {
    using conn = await Deno.connect({ transport: "unix", path: p });
    return conn.remoteAddr.transport;
  },
};

export default {
  async work_item_start(ctx: { what: string; path: string; to?: string }) {
    const op = OPS[ctx.what];
    if (!op) throw new Error(`unknown operation ${ctx.what}`);
    return { reason: await attempt(() => op(ctx.path, ctx.to ?? "")) };
  },
};
