// What kills a hook's worker from the inside in Deno 2.9, whatever its runtime does with
// errors: a Proxy whose every trap throws, thrown from an event listener Deno itself fires (an
// `AbortSignal.timeout()`'s 'abort'). Deno reports a listener's throw by reading the value to
// describe it; the traps throw inside that reporting, which is not an error event the runtime
// could prevent, and the worker dies ("Uncaught Error: storm"). The runtime's timers swap such
// a value for a plain Error (`_runtime_timers.ts`); Deno's own listeners are not wrapped.

const TRAPS = [
  "apply",
  "construct",
  "defineProperty",
  "deleteProperty",
  "get",
  "getOwnPropertyDescriptor",
  "getPrototypeOf",
  "has",
  "isExtensible",
  "ownKeys",
  "preventExtensions",
  "set",
  "setPrototypeOf",
];

/** A value no trap of which can be read without throwing `Error("storm")`. */
function unreportable(): object {
  const trap = () => {
    throw new Error("storm");
  };
  return new Proxy({}, Object.fromEntries(TRAPS.map((t) => [t, trap])));
}

/** Kills this worker `ms` from now, from a listener Deno fires. */
export function dieSoon(ms: number): void {
  AbortSignal.timeout(ms).addEventListener("abort", () => {
    throw unreportable();
  });
}
