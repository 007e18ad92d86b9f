// Answers too large for the-loop, and tricks to slip one past the measurement.
const MiB = 1024 * 1024;

/** Built-ins that lie: an inherited setter, push, a regex exec, charCodeAt, Object.keys. */
function patch(): void {
  const big = Array(64).fill("x".repeat(16 * MiB));
  Object.defineProperty(Object.prototype, "note", {
    set(this: object, _v: unknown) {
      Object.defineProperty(this, "note", { value: big, enumerable: true, writable: true });
    },
    configurable: true,
  });
  Array.prototype.push = function (this: unknown[]) {
    this[this.length] = big;
    return this.length;
  };
  RegExp.prototype.exec = () =>
    Object.assign([""], { index: 0, input: "" }) as unknown as RegExpExecArray;
  String.prototype.charCodeAt = () => 0x41;
  Object.keys = () => ["proceed", "note"];
}

export default {
  work_item_start(ctx: { kind: string }) {
    if (ctx.kind === "huge_error") throw new Error("e".repeat(32 * MiB));
    if (ctx.kind === "huge_reason") return { proceed: false, reason: "r".repeat(32 * MiB) };
    if (ctx.kind === "repeated") {
      const s = "x".repeat(16 * MiB); // 16 MiB in the worker, 1 GiB once copied 64 times
      return { proceed: true, extra: Array(64).fill(s) };
    }
    if (ctx.kind === "repeated_small") {
      const s = "x".repeat(20 * 1024); // 20 KiB, 64 times: 1.25 MiB
      const o = { s };
      return { extra: [o, o, o, o, o, o, o, o, ...Array(56).fill(o)] };
    }
    if (ctx.kind === "multibyte") return { reason: "é".repeat(600_000) }; // 1.2 MB as UTF-8
    if (ctx.kind === "patched") {
      patch();
      return { proceed: true, note: "small" };
    }
    if (ctx.kind === "patched_multibyte") {
      patch();
      return { proceed: true, reason: "é".repeat(600_000) };
    }
    if (ctx.kind === "over_reason") return { proceed: false, reason: "é".repeat(2049) }; // 4098 B
    if (ctx.kind === "at_reason_cap") return { proceed: false, reason: "é".repeat(2048) }; // 4096 B
    return null;
  },
};
