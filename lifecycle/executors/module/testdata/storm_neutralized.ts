// Hostile, and harmless now: when mallory starts a work item it defeats the worker runtime's
// error handlers the way `ctx.spell` says — `Event.prototype.preventDefault` replaced by a
// no-op, or the events' `reason` and `error` getters by ones that throw, or both ("+") — then
// throws four ways at once: from a microtask, from a timer, and two unhandled rejections, one
// of them an object of throwing getters. It answers, and anyone else gets an answer too. The
// runtime took the originals before the hook loaded, so each throw is reported on stderr and
// the worker lives on. work_item_complete answers once every throw is behind it.
const poisoned = {
  get message(): string {
    throw new Error("a getter that throws");
  },
  get stack(): string {
    throw new Error("another one");
  },
  toString(): string {
    throw new Error("and toString");
  },
};

// Each attempt may be refused (the runtime fixes these properties before the hook runs): the
// attack is the attempt; either way the worker must not die.
function attempt(fn: () => void): void {
  try {
    fn();
  } catch { /* refused: fine */ }
}

const SPELLINGS: Record<string, () => void> = {
  preventDefault() {
    attempt(() => Event.prototype.preventDefault = function () {});
  },
  getters() {
    attempt(() =>
      Object.defineProperty(PromiseRejectionEvent.prototype, "reason", {
        get() {
          throw new Error("no reason for you");
        },
      })
    );
    attempt(() =>
      Object.defineProperty(ErrorEvent.prototype, "error", {
        get() {
          throw new Error("no error for you");
        },
      })
    );
  },
  defaultPrevented() {
    attempt(() => Object.defineProperty(Event.prototype, "defaultPrevented", { get: () => false }));
  },
  dispatchEvent() {
    attempt(() => EventTarget.prototype.dispatchEvent = () => true);
  },
};

/** Throws four ways tagged `tag`; resolves once all of them have been dispatched. */
function storm(tag: string): Promise<void> {
  queueMicrotask(() => {
    throw new Error(`microtask storm (${tag})`);
  });
  setTimeout(() => {
    throw new Error(`timer storm (${tag})`);
  }, 0);
  void Promise.reject(new Error(`rejected storm (${tag})`));
  void Promise.reject(poisoned);
  // timers run in order: a turn after the throwing one, then one more for the rejections
  return new Promise((resolve) => setTimeout(() => setTimeout(resolve, 0), 0));
}

let stormed: Promise<void> = Promise.resolve();

export default {
  work_item_start(ctx: { actor?: string; spell?: string }): Record<string, never> {
    if (ctx.actor !== "mallory") return {};
    const spell = String(ctx.spell);
    for (const s of spell.split("+")) SPELLINGS[s]();
    stormed = storm(spell);
    return {};
  },
  async work_item_complete(): Promise<Record<string, never>> {
    await stormed;
    return {};
  },
};
