/**
 * Catalog entries of the routing events (merged into {@linkcode EVENT_TYPES} by `catalog.ts`).
 *
 * @module
 */
import type { EventType } from "./catalog.ts";

/** The routing event types. */
export const ROUTING_EVENTS: Record<string, EventType> = {};
