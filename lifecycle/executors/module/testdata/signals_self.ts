// Tries to signal the-loop's own process, which Deno allows without --allow-run.
const node = (globalThis as unknown as {
  process: { pid: number; kill(pid: number, signal: string): void };
}).process;

export default {
  work_item_start(ctx: { how: string }) {
    try {
      if (ctx.how === "deno") Deno.kill(Deno.pid, "SIGKILL");
      else if (ctx.how === "node") node.kill(node.pid, "SIGKILL");
      else if (ctx.how === "group") Deno.kill(0, "SIGKILL");
      return { reason: "sent" };
    } catch (err) {
      return { reason: (err as Error).message };
    }
  },
};
