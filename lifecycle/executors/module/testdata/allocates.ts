// work_item_start allocates without bound when asked to; otherwise it answers.
export default {
  work_item_start(ctx: { grow?: boolean }) {
    const hoard: number[][] = [];
    while (ctx.grow) hoard.push(new Array(100_000).fill(Math.random()));
    return { proceed: true, reason: `answered ${hoard.length}` };
  },
};
