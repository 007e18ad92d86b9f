// work_item_start busy-loops forever when asked to; otherwise it answers.
export default {
  work_item_start(ctx: { spin?: boolean }) {
    // deno-lint-ignore no-empty
    while (ctx.spin) {}
    return { proceed: true, reason: "answered" };
  },
};
