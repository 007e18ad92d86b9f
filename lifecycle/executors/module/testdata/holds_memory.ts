// work_item_start keeps `mb` more megabytes of buffers (outside V8's heap, so only the hook
// host's memory watch sees them, every page written so they count) and `heapMb` more of
// JavaScript arrays (in V8's heap); then it answers after `waitMs`, or never (`forever`: only
// the watch ends that call).
const buffers: Uint8Array[] = [];
const arrays: number[][] = [];
export default {
  async work_item_start(
    ctx: { mb?: number; heapMb?: number; waitMs?: number; forever?: boolean },
  ) {
    for (let i = 0; i < (ctx.mb ?? 0); i++) buffers.push(new Uint8Array(1024 * 1024).fill(7));
    // 131,072 doubles of 8 bytes: one MiB each
    for (let i = 0; i < (ctx.heapMb ?? 0); i++) {
      arrays.push(Array.from({ length: 131_072 }, (_, j) => j + 0.5));
    }
    if (ctx.forever) await new Promise(() => {});
    if (ctx.waitMs) await new Promise((resolve) => setTimeout(resolve, ctx.waitMs));
    return { proceed: true, reason: `holding ${buffers.length} + ${arrays.length} MB` };
  },
};
