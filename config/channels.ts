/**
 * The notification channels' rules the schema cannot say well, and their per-type defaults.
 *
 * A channel (`collaborators[].notifications.channels[]`) is a `slack`, `webhook` or `command`
 * channel by its `type` (default `slack`); the schema lists every type's keys, and
 * {@linkcode channelProblems} holds each channel to its own type's (a `url` on a slack channel is
 * a located problem), asks for the keys its type needs (`url`, `command`), and makes every name
 * unique across all collaborators (a name left out is `<handle without @>-<type>`; when that
 * repeats, the problem asks for a name). {@linkcode fillChannels} then gives each channel its
 * name and its type's defaults (slack: `urlEnv`, `via`, `config`; command: `env`).
 *
 * | key                                        | slack | webhook        | command        |
 * | ------------------------------------------ | ----- | -------------- | -------------- |
 * | `name`, `type`, `enabled`, `timeoutSeconds` | yes   | yes            | yes            |
 * | `urlEnv`, `via`, `config`                  | yes   | —              | —              |
 * | `url`                                      | —     | yes (required) | —              |
 * | `secretEnv`                                | —     | yes            | —              |
 * | `command`                                  | —     | —              | yes (required) |
 * | `env`                                      | —     | —              | yes            |
 *
 * @module
 */
import { resolve } from "node:path";
import { byPosition, type Problem } from "../errors.ts";
import { isMapping } from "./describe.ts";
import { formatKeyPath, type KeyPath, type ParsedYaml, type Position } from "./yaml.ts";
import type { ChannelType } from "./types.ts";

/** The variable a slack channel's webhook URL is read from when it names none. */
export const DEFAULT_SLACK_URL_ENV = "THE_LOOP_SLACK_WEBHOOK_URL";

const COMMON_KEYS = new Set(["name", "type", "enabled", "timeoutSeconds"]);

/** Each type's own keys (beyond the common ones), and which of them it requires. */
const TYPE_KEYS: Record<ChannelType, { keys: string[]; required: Record<string, string> }> = {
  slack: { keys: ["urlEnv", "via", "config"], required: {} },
  webhook: {
    keys: ["url", "secretEnv"],
    required: { url: "a webhook channel POSTs the envelope to it" },
  },
  command: { keys: ["command", "env"], required: { command: "the argv a command channel runs" } },
};

/** The type whose key `key` is (undefined: a common key, or none). */
function ownerOf(key: string): ChannelType | undefined {
  for (const [type, { keys }] of Object.entries(TYPE_KEYS)) {
    if (keys.includes(key)) return type as ChannelType;
  }
  return undefined;
}

/** A channel's name when it sets none: its collaborator's handle without `@`, then its type. */
export function defaultChannelName(handle: string, type: string): string {
  return `${handle.replace(/^@/, "")}-${type}`;
}

/** One channel as written, with where it is. */
interface Written {
  path: KeyPath;
  value: Record<string, unknown>;
  handle: string;
}

function* channels(data: unknown): Generator<Written> {
  const collaborators = isMapping(data) ? data.collaborators : undefined;
  if (!Array.isArray(collaborators)) return;
  for (const [i, c] of collaborators.entries()) {
    if (!isMapping(c) || !isMapping(c.notifications)) continue;
    const list = c.notifications.channels;
    if (!Array.isArray(list)) continue;
    for (const [j, value] of list.entries()) {
      if (!isMapping(value)) continue;
      const path = ["collaborators", i, "notifications", "channels", j];
      yield { path, value, handle: String(c.handle ?? "") };
    }
  }
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

/**
 * Every channel problem in `data` (already accepted by the schema), located in `parsed`: keys of
 * another type, a missing `url`/`command`, a `url` that is not http(s) (never echoed: it may hold
 * a token), and names used twice across all collaborators.
 */
export function channelProblems(data: unknown, parsed: ParsedYaml, file: string): Problem[] {
  const problems: Problem[] = [];
  const near = (path: KeyPath, key: boolean): Position =>
    (key ? parsed.locateKey(path) : parsed.locate(path)) ?? parsed.locateKey(path) ??
      parsed.locate(path.slice(0, -1)) ?? { line: 1, col: 1 };
  const problem = (path: KeyPath, key: boolean, message: string) =>
    problems.push({ file, ...near(path, key), path: formatKeyPath(path), message });
  const names = new Map<string, KeyPath>();
  for (const { path, value, handle } of channels(data)) {
    const type = (typeof value.type === "string" ? value.type : "slack") as ChannelType;
    const own = TYPE_KEYS[type];
    if (!own) continue; // the schema refused it already
    for (const key of Object.keys(value)) {
      const owner = ownerOf(key);
      if (COMMON_KEYS.has(key) || owner === undefined || owner === type) continue;
      problem(
        [...path, key],
        true,
        `"${key}" is a ${owner} channel's key, not a ${type} channel's: remove it, or set ` +
          `type: ${owner}`,
      );
    }
    for (const [key, why] of Object.entries(own.required)) {
      if (!(key in value)) {
        problem(path, true, `missing required key "${key}" (${why})`);
      }
    }
    if (type === "webhook" && typeof value.url === "string" && !isHttpUrl(value.url)) {
      problem([...path, "url"], false, "must be an http:// or https:// URL");
    }
    const explicit = typeof value.name === "string";
    const name = explicit ? value.name as string : defaultChannelName(handle, type);
    const first = names.get(name);
    if (first === undefined) {
      names.set(name, path);
      continue;
    }
    const line = parsed.locateKey(first)?.line;
    const where = formatKeyPath(first) + (line ? ` (line ${line})` : "");
    if (explicit) {
      problem(
        [...path, "name"],
        false,
        `channel name "${name}" is already used by ${where}: channel names must be unique ` +
          "across all collaborators",
      );
    } else {
      problem(
        path,
        true,
        `this channel's default name "${name}" is already used by ${where}: give it a name ` +
          "(name: …), unique across all collaborators",
      );
    }
  }
  return problems.sort(byPosition);
}

type Obj = Record<string, unknown>;

/**
 * Gives every channel of a filled config its name and its type's defaults, in place: slack
 * `urlEnv` ({@linkcode DEFAULT_SLACK_URL_ENV}), `via` (`mcp`) and `config` (`{channel-list: []}`);
 * a command channel runs in `baseDir` (the config file's directory), where a `./` or `../`
 * program is found.
 */
export function fillChannels(config: Obj, baseDir?: string): void {
  const collaborators = config.collaborators;
  if (!Array.isArray(collaborators)) return;
  for (const c of collaborators as Obj[]) {
    const list = (c.notifications as Obj | undefined)?.channels;
    if (!Array.isArray(list)) continue;
    for (const [j, ch] of (list as Obj[]).entries()) {
      const type = String(ch.type ?? "slack");
      const filled: Obj = { name: ch.name ?? defaultChannelName(String(c.handle), type), ...ch };
      if (type === "slack") {
        filled.urlEnv ??= DEFAULT_SLACK_URL_ENV;
        filled.via ??= "mcp";
        filled.config ??= { "channel-list": [] };
      } else if (type === "command") {
        filled.env ??= [];
        // run in the config file's directory, a relative program found there (as a command hook)
        if (baseDir !== undefined) {
          filled.cwd = baseDir;
          const argv = Array.isArray(filled.command) ? [...filled.command as string[]] : [];
          if (/^\.\.?\//.test(argv[0] ?? "")) argv[0] = resolve(baseDir, argv[0]);
          filled.command = argv;
        }
      }
      list[j] = filled;
    }
  }
}
