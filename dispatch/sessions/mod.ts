/**
 * Sessions: the registry's write side ({@linkcode SessionStore}: one JSON file per
 * session, one live session per work item, every change a read-modify-write under an OS file
 * lock), the execution-control actions ({@linkcode SessionControl}, the `ControlActions` of
 * `../seams.ts`), the `input_received` gate in front of them ({@linkcode admitControl}) and the
 * way a CLI verb ends a stopped harness it does not host ({@linkcode harnessEnder}).
 * The format and the commands are described in `docs/sessions.md`.
 *
 * @module
 */
export {
  type Mutation,
  RECENT_DELIVERIES,
  type RegisterInput,
  SessionExistsError,
  type SessionPatch,
  SessionStore,
  type SessionStoreOptions,
} from "./store.ts";
export { SessionControl, type SessionControlOptions } from "./control.ts";
export { type Admission, admitControl, type AdmitInput } from "./admit.ts";
export { harnessEnder, type HarnessEnderOptions, hostedOf } from "./end_harness.ts";
