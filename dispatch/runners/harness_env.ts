/**
 * The environment a harness starts with — the same for both runners. It starts from an allowlist
 * of the daemon's own environment ({@linkcode HARNESS_ENV_ALLOWLIST}: `PATH HOME USER LOGNAME
 * SHELL LANG LC_* TERM COLORTERM TZ TMPDIR`), adds what `routing.harnessEnv` names (`pass`: names
 * copied from the daemon's environment; `set`: `NAME: value` pairs), and, only when
 * `routing.agentToken` opts in, the token it names as `GH_TOKEN`. Nothing else of the daemon's
 * environment reaches the agent: not the webhook secret, not the daemon's GitHub token
 * (`github.tokenEnv`, `GH_TOKEN`, `GITHUB_TOKEN`), not any other variable.
 *
 * ```ts
 * harnessEnvironment({ base: Deno.env.toObject(), harnessEnv: { pass: ["EDITOR"], set: {} } });
 * ```
 *
 * @module
 */

/** The variables of the daemon's environment every harness gets (`LC_*`: every locale one). */
export const HARNESS_ENV_ALLOWLIST: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LC_*",
  "TERM",
  "COLORTERM",
  "TZ",
  "TMPDIR",
];

/** The webhook secret's default variable: never in a harness's environment, whatever names it. */
export const WEBHOOK_SECRET_ENV = "THE_LOOP_GH_WEBHOOK_SECRET";

/** `routing.harnessEnv`: names passed through from the daemon's environment, and fixed values. */
export interface HarnessEnvConfig {
  pass: string[];
  set: Record<string, string>;
}

/** Inputs of {@linkcode harnessEnvironment}. */
export interface HarnessEnvironmentOptions {
  /** The daemon's environment (`Deno.env.toObject()`). */
  base: Record<string, string>;
  /** `routing.harnessEnv`; none: the allowlist alone. */
  harnessEnv?: HarnessEnvConfig;
  /** `routing.agentToken.env`: the variable whose value the agent gets as `GH_TOKEN`; none: none. */
  agentTokenEnv?: string;
  /**
   * Variables never passed, whatever the allowlist, `pass` or `set` say: the webhook secret's
   * (`webhooks.ghWebhook.secretEnv`, which may be named `LC_…`). {@linkcode WEBHOOK_SECRET_ENV}
   * is always withheld.
   */
  withhold?: readonly string[];
}

/** Whether the allowlist lets `name` through. */
export function allowlisted(name: string): boolean {
  return HARNESS_ENV_ALLOWLIST.some((a) =>
    a.endsWith("*") ? name.startsWith(a.slice(0, -1)) : name === a
  );
}

/**
 * The harness's whole environment: the allowlisted variables of `base`, then `harnessEnv.pass`
 * (those set in `base`), then `harnessEnv.set`, then `GH_TOKEN` from `agentTokenEnv` when that
 * variable is set; but never a `withhold` variable nor {@linkcode WEBHOOK_SECRET_ENV}. A variable
 * of `base` not named here is left out.
 */
export function harnessEnvironment(o: HarnessEnvironmentOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(o.base)) if (allowlisted(name)) env[name] = value;
  for (const name of o.harnessEnv?.pass ?? []) {
    const value = o.base[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, o.harnessEnv?.set ?? {});
  const withheld = new Set([WEBHOOK_SECRET_ENV, ...(o.withhold ?? [])]);
  for (const name of withheld) delete env[name];
  if (o.agentTokenEnv && !withheld.has(o.agentTokenEnv)) {
    const token = o.base[o.agentTokenEnv];
    if (token) env.GH_TOKEN = token;
  }
  return env;
}

/** How a runner is told to build its harness's environment (both runners' options). */
export interface RunnerEnvOptions {
  /**
   * The daemon's environment (default `Deno.env.toObject()`), of which only the allowlist and
   * what `harnessEnv` names reach the harness.
   */
  baseEnv?: Record<string, string>;
  /** `routing.harnessEnv`. */
  harnessEnv?: HarnessEnvConfig;
  /** `routing.agentToken.env`: the variable the agent gets as `GH_TOKEN`. */
  agentTokenEnv?: string;
  /** Never in the harness's environment: the webhook secret's variable. */
  withholdEnv?: readonly string[];
  /** Added to the harness's environment (after the built one): the-loop's own variables, tests'. */
  env?: Record<string, string>;
}

/** A runner's harness environment: {@linkcode harnessEnvironment} of its options, then `env`. */
export function runnerEnvironment(o: RunnerEnvOptions): Record<string, string> {
  return {
    ...harnessEnvironment({
      base: o.baseEnv ?? Deno.env.toObject(),
      harnessEnv: o.harnessEnv,
      agentTokenEnv: o.agentTokenEnv,
      withhold: o.withholdEnv,
    }),
    ...o.env,
  };
}
