// Tries to keep data, or pass it to another hook, through storage that asks no permission:
// the Cache API (written under Deno's data directory), Web Locks (shared by every worker of the
// process), Web Storage, IndexedDB, Deno KV. `ctx.what` is "write" or "read"; `ctx.actor` names
// the cache and lock, so runs of the test do not meet.
// deno-lint-ignore-file no-explicit-any
const G = globalThis as any;
const URL_KEY = "https://the-loop.invalid/secret";

async function attempt(fn: () => unknown): Promise<string> {
  try {
    const r = await fn();
    return r === undefined ? "absent" : `got:${String(r)}`;
  } catch (err) {
    return `threw:${(err as Error).name}: ${(err as Error).message}`;
  }
}

export default {
  async work_item_start(ctx: { what: string; actor: string }) {
    const name = `the-loop-test-${ctx.actor}`;
    const out: Record<string, string> = {};
    if (ctx.what === "write") {
      out.caches = await attempt(async () => {
        await (await caches.open(name)).put(URL_KEY, new Response("secret-from-a"));
        return "stored";
      });
      out.caches_lookup = await attempt(async () => {
        const store = Reflect.get(globalThis, "cac" + "hes") ?? G.self?.caches;
        if (!store) return undefined;
        await (await store.open(`${name}-2`)).put(URL_KEY, new Response("secret-from-a"));
        return "stored";
      });
      out.locks = await attempt(() => {
        const locks = G.navigator?.locks ?? G["Lock" + "Manager"]?.prototype;
        if (!locks?.request) return undefined;
        locks.request(name, () => new Promise(() => {})); // held until the worker ends
        return "held";
      });
      return { reason: JSON.stringify(out) };
    }
    out.caches = await attempt(async () => {
      const store = G["cac" + "hes"];
      if (!store) return undefined;
      const hit = await (await store.open(name)).match(URL_KEY);
      return hit ? await hit.text() : "no entry";
    });
    out.locks = await attempt(async () => {
      const locks = Reflect.get(G.navigator ?? {}, "lo" + "cks");
      if (!locks) return undefined;
      const held = (await locks.query()).held.map((l: { name: string }) => l.name);
      return held.includes(name) ? "lock seen" : "no lock";
    });
    for (
      const key of [
        "caches",
        "CacheStorage",
        "Cache",
        "localStorage",
        "sessionStorage",
        "indexedDB",
        "LockManager",
      ]
    ) out[`global_${key}`] = await attempt(() => G[key] && typeof G[key]);
    out.navigator_storage = await attempt(() => G.navigator?.storage && "present");
    out.navigator_locks = await attempt(() => G.navigator?.locks && "present");
    out.deno_openKv = await attempt(() => G.Deno.openKv && "present");
    return { reason: JSON.stringify(out) };
  },
};
