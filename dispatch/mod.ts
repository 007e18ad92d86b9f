/**
 * The dispatcher's face. In this issue (#9) only the seam: the types the router hands over and
 * gets back, and the control-keyword parser both ingress and dispatch use. The dispatcher itself
 * (sessions, harnesses, tmux) arrives with issue #10.
 *
 * @module
 */
export type {
  DispatchOutcome,
  Dispatcher,
  RoutedEvent,
  RoutedKind,
  Subject,
  Via,
} from "./types.ts";
