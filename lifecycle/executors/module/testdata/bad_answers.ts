// Answers that are not plain JSON data.
export default {
  work_item_start(ctx: { kind: string }) {
    if (ctx.kind === "function") return { proceed: true, notify: () => 1 };
    if (ctx.kind === "symbol") return { reason: Symbol("x") };
    if (ctx.kind === "map") return { reason: new Map() };
    if (ctx.kind === "number") return 42;
    return { reason: "fine", when: new Date(0) };
  },
};
