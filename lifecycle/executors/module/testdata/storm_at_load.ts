// Hostile: from its top level it arranges for its worker to die 10 ms in (`_dies_soon.ts`),
// after the worker has told the-loop it loaded (the hook is evaluated and the load answered in
// one task; a timer fires in a later one). Each fresh worker does it again: without a restart
// backoff this is a restart storm.
import { dieSoon } from "./_dies_soon.ts";

dieSoon(10);

export default {
  // never answers: a call ends when the worker dies under it
  work_item_start(): Promise<never> {
    return new Promise(() => {});
  },
};
