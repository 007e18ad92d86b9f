// work_item_start blocks its thread in Atomics.wait forever when asked to (it waits: no CPU,
// no event loop, no answer to a ping); otherwise it answers.
export default {
  work_item_start(ctx: { block?: boolean }) {
    if (ctx.block) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
    return { proceed: true, reason: "answered" };
  },
};
