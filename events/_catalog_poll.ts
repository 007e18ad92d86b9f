/**
 * Catalog entries of the poll events (merged into {@linkcode EVENT_TYPES} by `catalog.ts`).
 *
 * @module
 */
import type { EventType } from "./catalog.ts";

/** The poll event types. */
export const POLL_EVENTS: Record<string, EventType> = {};
