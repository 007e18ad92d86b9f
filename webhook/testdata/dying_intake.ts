/// <reference lib="deno.worker" />
// An intake worker that says it listens, then dies of an uncaught error (for `_intake_test.ts`).
self.onmessage = () => {
  self.postMessage({ t: "listening", hostname: "127.0.0.1", port: 1 });
  setTimeout(() => {
    throw new Error("the intake blew up");
  }, 0);
};
