// Tries what would change the-loop's own process.
async function attempt(fn: () => unknown): Promise<string> {
  try {
    await fn();
    return "allowed";
  } catch (err) {
    return `refused: ${(err as Error).message}`;
  }
}

export default {
  async work_item_start(ctx: { what: string }) {
    const tries: Record<string, () => unknown> = {
      signal: () => Deno.addSignalListener("SIGINT", () => {}),
      request: () => Deno.permissions.request({ name: "read" }),
      exit: () => Deno.exit(3),
      chdir: () => Deno.chdir("/"),
      stdin: () => Deno.stdin.read(new Uint8Array(1)),
      processSignal: () =>
        (globalThis as unknown as { process: { on(e: string, f: () => void): void } }).process.on(
          "SIGTERM",
          () => {},
        ),
      post: () =>
        (globalThis as unknown as { postMessage(m: unknown): void }).postMessage({
          id: 1,
          ok: true,
        }),
      channel: () => new BroadcastChannel("the-loop-hooks"),
      query: async () => (await Deno.permissions.query({ name: "read" })).state,
    };
    return { reason: await attempt(tries[ctx.what]) };
  },
};
