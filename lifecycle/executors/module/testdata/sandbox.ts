// Tries each thing a sandboxed hook must not do unless granted; answers what happened.
async function attempt(fn: () => Promise<unknown> | unknown): Promise<string> {
  try {
    return `ok:${String(await fn())}`;
  } catch (err) {
    return `denied:${(err as Error).name}`;
  }
}

export default {
  async work_item_start(ctx: Record<string, string>) {
    switch (ctx.what) {
      case "read":
        return { reason: await attempt(() => Deno.readTextFile(ctx.path)) };
      case "fetch":
        return { reason: await attempt(async () => (await fetch(ctx.url)).text()) };
      case "env":
        return { reason: await attempt(() => Deno.env.get(ctx.name)) };
      case "run":
        return {
          reason: await attempt(async () => (await new Deno.Command("true").output()).code),
        };
      default:
        throw new Error(`unknown attempt ${ctx.what}`);
    }
  },
};
