/**
 * Where the GitHub token comes from, in order: the variable named by `github.tokenEnv`, then
 * `GH_TOKEN`, then `GITHUB_TOKEN`, then the output of `gh auth token` (the operator's existing
 * `gh` login) when that program is installed. The token itself is never logged, put in an
 * error, or passed on a command line.
 *
 * ```ts
 * const { token, source } = await resolveToken({ tokenEnv: config.github.tokenEnv });
 * // source: "env:GITHUB_TOKEN" | "gh" — safe to print; token is not
 * ```
 *
 * @module
 */
import type { CliConfig, EnvReader } from "../config/types.ts";

/** Options for {@linkcode resolveToken}. */
export interface ResolveTokenOptions {
  /** The NAME of the variable to read first (`github.tokenEnv`); default `GITHUB_TOKEN`. */
  tokenEnv?: string;
  /** Reads an environment variable; default `Deno.env.get`. */
  env?: EnvReader;
  /** The program run as `<ghProgram> auth token`; default `gh`. `""` skips this step. */
  ghProgram?: string;
  /** The API's base URL: for a GitHub Enterprise host, `gh auth token --hostname HOST` is run. */
  apiUrl?: string;
  /** How long `gh auth token` may take, in milliseconds; default 10 s. */
  ghTimeoutMs?: number;
}

/** A token and where it came from (`env:NAME` or `gh`). Print `source`, never `token`. */
export interface ResolvedToken {
  token: string;
  source: string;
}

/** No token was found anywhere; the message says the three ways to give one. */
export class TokenMissingError extends Error {
  override name = "TokenMissingError";
  constructor(tokenEnv: string, ghProgram: string) {
    const envs = [...new Set([tokenEnv, "GH_TOKEN", "GITHUB_TOKEN"])].join(", ");
    super(
      `no GitHub token found. Give one in any of three ways: ` +
        `(1) export it in the variable named by github.tokenEnv (now ${tokenEnv}); ` +
        `(2) export GH_TOKEN or GITHUB_TOKEN (checked: ${envs}); ` +
        `(3) log in with the GitHub CLI (\`${ghProgram || "gh"} auth login\`), ` +
        `whose \`${ghProgram || "gh"} auth token\` the-loop reads`,
    );
  }
}

const DEFAULT_ENV: EnvReader = (name) => {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
};

/** The host to ask `gh` about, when the API is not github.com's. */
function enterpriseHost(apiUrl: string | undefined): string | undefined {
  if (!apiUrl) return undefined;
  try {
    const host = new URL(apiUrl).host;
    return host === "api.github.com" ? undefined : host;
  } catch {
    return undefined;
  }
}

async function ghAuthToken(opts: ResolveTokenOptions): Promise<string | undefined> {
  const program = opts.ghProgram ?? "gh";
  if (!program) return undefined;
  const host = enterpriseHost(opts.apiUrl);
  const args = ["auth", "token", ...(host ? ["--hostname", host] : [])];
  const timeout = AbortSignal.timeout(opts.ghTimeoutMs ?? 10_000);
  try {
    const out = await new Deno.Command(program, {
      args,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
      signal: timeout,
    }).output();
    if (!out.success) return undefined;
    const token = new TextDecoder().decode(out.stdout).trim();
    return token && !/\s/.test(token) ? token : undefined;
  } catch {
    return undefined; // not installed, not runnable, timed out: no token from gh
  }
}

/**
 * Finds the token (see the module doc for the order). Throws {@linkcode TokenMissingError}
 * when there is none.
 */
export async function resolveToken(opts: ResolveTokenOptions = {}): Promise<ResolvedToken> {
  const env = opts.env ?? DEFAULT_ENV;
  const tokenEnv = opts.tokenEnv || "GITHUB_TOKEN";
  for (const name of new Set([tokenEnv, "GH_TOKEN", "GITHUB_TOKEN"])) {
    const value = env(name)?.trim();
    if (value) return { token: value, source: `env:${name}` };
  }
  const token = await ghAuthToken(opts);
  if (token) return { token, source: "gh" };
  throw new TokenMissingError(tokenEnv, opts.ghProgram ?? "gh");
}

/** {@linkcode resolveToken} with what the config says: its `tokenEnv`, `gh` program and API URL. */
export function resolveTokenFromConfig(
  config: Pick<CliConfig, "github" | "webhooks" | "polling">,
  env?: EnvReader,
): Promise<ResolvedToken> {
  return resolveToken({
    tokenEnv: config.github.tokenEnv,
    env,
    ghProgram: ghProgramFromConfig(config),
    apiUrl: config.github.apiUrl,
  });
}

/**
 * The program run for `gh auth token`, read from the config's legacy `ghBinary` keys: the first
 * one set to something other than `gh` (`polling.sources[]`, then
 * `webhooks.ghWebhook.routing.control`, `.reactions`, `.announce`), else `gh`. See docs/decisions/0005-github-client.md.
 */
export function ghProgramFromConfig(config: Pick<CliConfig, "webhooks" | "polling">): string {
  return ghCandidates(config).find((c) => c !== "gh") ?? "gh";
}

function ghCandidates(config: Pick<CliConfig, "webhooks" | "polling">): string[] {
  const routing = config.webhooks?.ghWebhook?.routing;
  return [
    ...(config.polling?.sources ?? []).map((s) => s.ghBinary),
    routing?.control?.ghBinary,
    routing?.reactions?.ghBinary,
    routing?.announce?.ghBinary,
  ].filter((c): c is string => !!c);
}

/**
 * A warning when the legacy `ghBinary` keys name different programs (only one is used, for
 * `gh auth token`); none otherwise.
 */
export function ghProgramWarnings(config: Pick<CliConfig, "webhooks" | "polling">): string[] {
  const named = [...new Set(ghCandidates(config).filter((c) => c !== "gh"))];
  if (named.length < 2) return [];
  return [
    `the ghBinary keys name ${named.length} different programs (${named.join(", ")}); only ` +
    `"${named[0]}" is used, to run 'auth token' when no token variable is set: make them agree`,
  ];
}
