// Throws what a runtime's failure path may trip over: a null-prototype object, a Proxy whose
// every trap throws (another such Proxy), a revoked Proxy, an Error whose message or stack
// getter throws — at a call (`ctx.how`), from the constructor (`with: {throwIn:
// "constructor"}`), as its answer, or from timers (`later`).
// deno-lint-ignore-file no-explicit-any
const trap = (): never => {
  throw new Proxy({}, throwing);
};
const throwing: ProxyHandler<object> = {
  get: trap,
  getPrototypeOf: trap,
  getOwnPropertyDescriptor: trap,
  has: trap,
  ownKeys: trap,
};

function odd(how: string): unknown {
  switch (how) {
    case "null_prototype":
      return Object.assign(Object.create(null), { code: "E_ODD" });
    case "proxy":
      return new Proxy({}, throwing);
    case "proxy_of_error":
      return new Proxy(new Error("wrapped"), throwing);
    case "revoked_proxy": {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    }
    case "message_getter": {
      const e = new Error("hidden");
      Object.defineProperty(e, "message", { get: trap });
      return e;
    }
    case "stack_getter": {
      const e = new Error("its stack cannot be read");
      Object.defineProperty(e, "stack", { get: trap });
      return e;
    }
    default:
      return new Error(`unknown odd throw ${how}`);
  }
}

export default class Odd {
  constructor(options: { throwIn?: string }) {
    if (options.throwIn === "constructor") throw odd("null_prototype");
  }
  async work_item_start(ctx: { how: string }): Promise<any> {
    if (ctx.how === "answer_proxy") return new Proxy({}, throwing);
    if (ctx.how === "later") {
      // thrown from timers and a rejection, with no call on the stack: the worker's error paths
      setTimeout(() => {
        throw new Proxy({}, throwing);
      });
      (globalThis as any)["setImm" + "ediate"](() => {
        throw odd("message_getter");
      });
      Promise.reject(new Proxy({}, throwing));
      // answer once both have fired (timers and immediates run in the order they were set)
      await new Promise((resolve) => setTimeout(resolve));
      await new Promise((resolve) => (globalThis as any).setImmediate(resolve));
      return { reason: "answered" };
    }
    await null; // a rejected promise, not a synchronous throw
    throw odd(ctx.how);
  }
}
