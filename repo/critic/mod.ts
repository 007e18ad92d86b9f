/**
 * Critics: the reviewers a repository declares in `.the-loop/harness-config.yaml`
 * (`reviews.critics[]`), each a harness (`claude`, `cursor`, …, through the dispatcher's harness
 * adapters) or a command, run one round at a time by `the-loop critic run` (see
 * `docs/critic.md`). The declaration (`config.ts`), the argv (`argv.ts`), the envelope a round
 * answers (`envelope.ts`) and loading and running (`run.ts`).
 *
 * @module
 */
export {
  type CommandCritic,
  type Critic,
  CRITIC_HARNESSES,
  CriticConfigError,
  type CriticHarness,
  criticsOf,
  DEFAULT_TIMEOUT_SECONDS,
  type HarnessCritic,
  WITHHELD_ENV,
} from "./config.ts";
export {
  criticSettings,
  expandArgs,
  type Placeholder,
  PLACEHOLDERS,
  type PlaceholderValues,
  unknownPlaceholders,
} from "./argv.ts";
export { type CriticEnvelope, criticEnvelope, type EnvelopeInput } from "./envelope.ts";
export {
  allowlistedEnv,
  criticAdapter,
  criticEnvironment,
  loadCritics,
  type LoadedCritics,
  planRun,
  type RoundInput,
  runCritic,
  type RunPlan,
  shownArgv,
} from "./run.ts";
