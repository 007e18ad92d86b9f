/**
 * The seven lifecycle point names. The full catalog (fields, types, decisions) lives in
 * `contract.ts`; this file is the one list of names everything else keys on.
 *
 * @module
 */

/** Every lifecycle point, in the order a work item's delivery meets them. */
export const POINT_NAMES = [
  "work_item_start",
  "session_spawn",
  "session_spawned",
  "waiting_for_input",
  "input_received",
  "phase_changed",
  "work_item_complete",
] as const;

/** A lifecycle point's name. */
export type PointName = typeof POINT_NAMES[number];

/** Is `name` one of the seven points? */
export function isPointName(name: unknown): name is PointName {
  return typeof name === "string" && (POINT_NAMES as readonly string[]).includes(name);
}
