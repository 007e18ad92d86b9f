/**
 * The status page (`docs/ui.md`): {@linkcode startUi} serves it over a state root — the page,
 * `GET /api/v1/state` and `GET /api/v1/items/REF` (JSON, `schema/ui/`), `GET /api/v1/events`
 * (server-sent events, resumable by byte offset), the controls as POSTs (each a CLI verb, handed
 * in as {@linkcode UiControls}) and the web terminal's route (a {@linkcode TerminalSeam}). Both
 * daemon commands start it when `ui.enabled`; `the-loop ui` serves it alone.
 *
 * - `snapshot.ts`: the pure core, a state root's facts and a clock in, {@linkcode UiState} out;
 * - `read.ts`: its shell, {@linkcode StateReader}, which only reads;
 * - `telemetry.ts`: hook calls, latency percentiles and circuits from the log;
 * - `server.ts`: {@linkcode startUi}.
 *
 * @module
 */
export { startUi, type UiOptions, type UiServer } from "./server.ts";
export { githubUrl, itemView, snapshot, type SnapshotInput } from "./snapshot.ts";
export { StateReader, type StateReaderOptions } from "./read.ts";
export { hookStats, percentile } from "./telemetry.ts";
export { exposureProblem, isLoopback } from "./guard.ts";
// the web terminal (`ui/terminal/`): the seam the server routes to, and its embedded files
export { TERMINAL_ASSETS, terminalSocket } from "./terminal/mod.ts";
export type {
  Asset,
  ControlAction,
  ControlAnswer,
  ControlRequest,
  ItemView,
  TerminalMode,
  TerminalSeam,
  TerminalTarget,
  UiControls,
  UiState,
} from "./types.ts";
