// work_item_start keeps `mb` more megabytes of buffers (outside V8's heap, so only the hook
// host's memory watch sees them), every page written so they count in the process's RSS; then
// it answers after `waitMs`, or never (`forever`: only the watch ends that call).
const held: Uint8Array[] = [];
export default {
  async work_item_start(ctx: { mb?: number; waitMs?: number; forever?: boolean }) {
    for (let i = 0; i < (ctx.mb ?? 0); i++) held.push(new Uint8Array(1024 * 1024).fill(7));
    if (ctx.forever) await new Promise(() => {});
    if (ctx.waitMs) await new Promise((resolve) => setTimeout(resolve, ctx.waitMs));
    return { proceed: true, reason: `holding ${held.length} MB` };
  },
};
