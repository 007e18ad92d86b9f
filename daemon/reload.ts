/**
 * Hot reload for the daemons: before each cycle (poller) or event (receiver) they ask
 * {@linkcode ConfigReloader.check} for the config. It looks at the file's `stat` first (see
 * `state/stat_gate.ts`), re-reads it only when that may have changed, and rebuilds only when the
 * content changed (by hash): an unchanged file costs one `stat` and never a rebuild. Concurrent
 * callers share one check. An empty file is taken for an edit in progress and ignored. A good edit is
 * taken (`config.reloaded`, naming the sections that changed); a broken one keeps the previous
 * config and says why once per broken content (`config.reload_failed`), not on every cycle. A
 * `validate` given (the daemon's own reading of what the schema cannot say, e.g. the loops) is
 * asked after the schema: a config it refuses is refused the same way, whole (nothing of it is
 * half-applied).
 *
 * @module
 */
import {
  type CliConfig,
  configFromText,
  type EnvReader,
  type LoadedConfig,
} from "../config/mod.ts";
import { formatProblem, messageOf, ProblemsError } from "../errors.ts";
import type { EventSink } from "../events/mod.ts";
import { StatGate } from "../state/stat_gate.ts";

/** Options of {@linkcode ConfigReloader}. */
export interface ConfigReloaderOptions {
  /** The config the daemon started with. */
  loaded: LoadedConfig;
  env: EnvReader;
  cwd: string;
  events: EventSink;
  /** Told (once per broken content) why an edit was refused; default: nothing. */
  warn?: (message: string) => void;
  /**
   * Asked of an edit that passed the schema, with where its keys are (`locate`) and its file:
   * throws (a `ProblemsError`, its problems at `file:line:col`) for a config that must be refused
   * whole, as one that does not validate is. Default: none (the schema's word is final).
   */
  validate?: (config: CliConfig, o: { locate: LoadedConfig["locate"]; file: string }) => void;
}

async function hashOf(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest).slice(0, 8), (b) => b.toString(16).padStart(2, "0"))
    .join("");
}

function changedSections(before: CliConfig, after: CliConfig): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const a = before as unknown as Record<string, unknown>;
  const b = after as unknown as Record<string, unknown>;
  return [...keys].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort();
}

/** Re-reads the config file when it changed. */
export class ConfigReloader {
  readonly path: string | null;
  readonly #opts: ConfigReloaderOptions;
  #config: CliConfig;
  #hash: string | undefined;
  #refused: string | undefined;
  #initialText: string | null | undefined;
  readonly #gate: StatGate;
  #inflight: Promise<CliConfig> | undefined;

  constructor(opts: ConfigReloaderOptions) {
    this.#opts = opts;
    this.path = opts.loaded.path;
    this.#config = opts.loaded.config;
    this.#initialText = opts.loaded.text;
    this.#gate = new StatGate(this.path);
  }

  /** The config in force. */
  get config(): CliConfig {
    return this.#config;
  }

  /**
   * The config to use now: re-read and validated when the file's content changed. `asOf`: the
   * config need only be as new as that moment (`performance.now()`); a look taken since serves.
   */
  check(opts: { asOf?: number } = {}): Promise<CliConfig> {
    if (this.path === null || !this.#gate.due(opts)) {
      return this.#inflight ?? Promise.resolve(this.#config);
    }
    const run = (this.#inflight ?? Promise.resolve(this.#config)).then(() => this.#check());
    this.#inflight = run;
    run.finally(() => this.#inflight === run && (this.#inflight = undefined)).catch(() => {});
    return run;
  }

  async #check(): Promise<CliConfig> {
    if (this.path === null) return this.#config;
    if (this.#hash === undefined && typeof this.#initialText === "string") {
      // the hash of what the daemon started with: an edit made since is seen at once
      this.#hash = await hashOf(this.#initialText);
    }
    let text: string;
    try {
      text = await Deno.readTextFile(this.path);
    } catch (error) {
      return this.#refuse(`unreadable:${messageOf(error)}`, [
        `cannot read ${this.path} (${messageOf(error)})`,
      ]);
    }
    // An editor that writes in place truncates first: an empty file is a write in progress, not
    // "every default" (which would, for a moment, route under a policy nobody wrote). The
    // previous config stays until the file has content again; write `{}` for all defaults.
    if (text.trim() === "" && this.#hash !== undefined) return this.#config;
    const hash = await hashOf(text);
    if (this.#hash === undefined) {
      // the first look only learns the hash of what the daemon started with
      this.#hash = hash;
      return this.#config;
    }
    if (hash === this.#hash || hash === this.#refused) return this.#config;
    try {
      const { config, locate } = await configFromText(text, {
        file: this.path,
        env: this.#opts.env,
        cwd: this.#opts.cwd,
      });
      this.#opts.validate?.(config, { locate, file: this.path });
      const changed = changedSections(this.#config, config);
      this.#config = config;
      this.#hash = hash;
      this.#refused = undefined;
      this.#opts.events.emit("config.reloaded", { path: this.path, hash, changed });
      return config;
    } catch (error) {
      const problems = error instanceof ProblemsError
        ? error.problems.map(formatProblem)
        : [messageOf(error)];
      return this.#refuse(hash, problems);
    }
  }

  #refuse(key: string, problems: string[]): CliConfig {
    if (this.#refused === key) return this.#config;
    this.#refused = key;
    this.#opts.events.emit("config.reload_failed", { path: this.path, problems }, {
      level: "error",
    });
    this.#opts.warn?.(
      `config edit refused, keeping the previous config: ${problems.length} problem(s) in ` +
        `${this.path}:\n` + problems.map((p) => `  ${p}`).join("\n"),
    );
    return this.#config;
  }
}
