/**
 * The dispatcher's face. In issue #9: the seam (the types the router hands over and gets back),
 * the control-keyword parser, and {@linkcode JournalDispatcher}, the interim dispatcher the daemons
 * use until the real one (sessions, harnesses, tmux) arrives with issue #10.
 *
 * @module
 */
export type {
  Dispatcher,
  DispatchOutcome,
  RoutedEvent,
  RoutedKind,
  Subject,
  Via,
} from "./types.ts";
export { parseControl, type ParsedControl } from "./keywords.ts";
export {
  JOURNAL_FILE,
  JournalDispatcher,
  type JournalDispatcherOptions,
  type JournalEntry,
  journalEntry,
  readJournal,
} from "./journal.ts";
