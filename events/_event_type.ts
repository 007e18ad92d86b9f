/**
 * The shape of one catalog entry and the levels, apart from the catalog itself so the catalog's
 * part files (`_catalog_*.ts`) and `catalog.ts`, which merges them, both import it and neither
 * imports the other back.
 *
 * @module
 */

/** How serious an event is, from least to most. */
export type Level = "debug" | "info" | "warning" | "error";

/** The levels in order; `--level X` means "X or later in this list". */
export const LEVELS: readonly Level[] = ["debug", "info", "warning", "error"];

/** One catalog entry. */
export interface EventType {
  /** What happened, in one sentence. */
  description: string;
  /** The level used when the emitter does not pass one. */
  level: Level;
  /** Field name → `type — meaning`. */
  fields: Record<string, string>;
}
