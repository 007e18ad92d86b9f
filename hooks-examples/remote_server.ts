/**
 * A remote (`url:`) hook server built on `serveHooks`: a compliance gate that
 *
 * - refuses `work_item_start` for repositories on a deny list, and
 * - masks anything that looks like a GitHub token in a person's input (`input_received`)
 *   before it reaches the agent.
 *
 * Run it (it prints one `listening on …` line when ready):
 *
 * ```sh
 * export HOOKS_TOKEN=$(openssl rand -hex 24)      # the-loop must send this bearer token
 * export HOOKS_DENY_REPOS=acme/secret,acme/legal  # or --deny acme/secret --deny acme/legal
 * deno run --allow-net --allow-env hooks-examples/remote_server.ts --port 8787
 * ```
 *
 * Flags: `--port N` (default `$HOOKS_PORT`, else 8787; 0 picks a free port), `--hostname H`
 * (default 127.0.0.1; bind a public address only behind TLS), `--token-env NAME` (the variable
 * holding the bearer token, default `HOOKS_TOKEN`; the server refuses to start when it is
 * unset), `--no-token` (serve without a bearer check: for a loopback trial only),
 * `--deny owner/repo` (repeatable, added to `$HOOKS_DENY_REPOS`).
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  type InputReceived,
  LifecycleHooks,
  serveHooks,
  type WorkItemStart,
} from "@the-loop/hooks";

/** GitHub token shapes: classic and fine-grained personal, OAuth, app and refresh tokens. */
const GITHUB_TOKEN = /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})\b/g;

/** The gate's policy; exported so it can be served elsewhere or tested in-process. */
export class ComplianceGate extends LifecycleHooks {
  readonly deny: Set<string>;

  constructor(deny: Iterable<string>) {
    super();
    this.deny = new Set([...deny].map((r) => r.trim().toLowerCase()).filter(Boolean));
  }

  override work_item_start(ctx: WorkItemStart) {
    const repo = ctx.work_item.repository;
    if (!this.deny.has(repo.toLowerCase())) return;
    return {
      proceed: false,
      reason: `${repo} is under a compliance hold: the-loop may not work on it`,
    };
  }

  override input_received(ctx: InputReceived) {
    const masked = ctx.text.replace(GITHUB_TOKEN, "[token removed by compliance]");
    if (masked !== ctx.text) return { text: masked };
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      port: { type: "string", default: Deno.env.get("HOOKS_PORT") ?? "8787" },
      hostname: { type: "string", default: "127.0.0.1" },
      "token-env": { type: "string", default: "HOOKS_TOKEN" },
      "no-token": { type: "boolean", default: false },
      deny: { type: "string", multiple: true, default: [] },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`remote_server: --port must be a port number (got ${values.port})`);
    Deno.exit(2);
  }
  const deny = [...(Deno.env.get("HOOKS_DENY_REPOS") ?? "").split(","), ...values.deny];
  const controller = new AbortController();
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => controller.abort());
  }
  let server;
  try {
    server = serveHooks(new ComplianceGate(deny), {
      port,
      hostname: values.hostname,
      tokenEnv: values["no-token"] ? undefined : values["token-env"],
      signal: controller.signal,
      onListen: ({ hostname, port }) =>
        console.log(`remote_server: listening on http://${hostname}:${port}/`),
    });
  } catch (err) {
    const hint = values["no-token"] ? "" : " (or pass --no-token for a loopback trial)";
    console.error(`remote_server: ${(err as Error).message}${hint}`);
    Deno.exit(1);
  }
  await server.finished;
}
