/**
 * The parked operations' face: the records of `<state.root>/suspended/` ({@linkcode
 * SuspensionStore}), read by the dispatcher that parks and resumes them and by `the-loop hooks
 * suspended` / `hooks resume` / `sessions stop`.
 *
 * @module
 */
export {
  type AskedPoint,
  type HeldDelivery,
  slugOfId,
  type SuspensionMode,
  type SuspensionRecord,
  suspensionsDir,
  SuspensionStore,
  type SuspensionStoreOptions,
} from "./store.ts";
