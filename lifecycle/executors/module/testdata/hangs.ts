// work_item_start never settles when asked to hang; otherwise it answers.
export default {
  work_item_start(ctx: { hang?: boolean }) {
    if (ctx.hang) return new Promise(() => {});
    return { proceed: true, reason: "answered" };
  },
};
