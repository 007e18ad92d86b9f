/**
 * Catalog entries of the webhook events (merged into {@linkcode EVENT_TYPES} by `catalog.ts`).
 *
 * @module
 */
import type { EventType } from "./catalog.ts";

/** The webhook event types. */
export const WEBHOOK_EVENTS: Record<string, EventType> = {};
