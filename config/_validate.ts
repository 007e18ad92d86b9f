/**
 * Validates parsed config data against the JSON Schema with ajv (all errors) and turns each
 * error into a located, friendly {@linkcode Problem}. Values are echoed masked, and never under
 * a secret-looking key (see `_secrets.ts`).
 *
 * @module
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import { byPosition, plural, type Problem } from "../errors.ts";
import { describeSchema, didYouMean, isMapping, type SchemaNode, showValue } from "./describe.ts";
import { isSecretPath, looksLikeToken, maskProblem, maskTokens, tokenNotName } from "./_secrets.ts";
import { formatKeyPath, type KeyPath, locateNear, type ParsedYaml } from "./yaml.ts";
import type { EnvReader } from "./types.ts";
import { envValue } from "./_fill.ts";

/**
 * The keywords our schema adds. All but `x-env-name` are annotations read by the loader and the
 * docs; `x-env-name: true` marks a variable's NAME and refuses a value that looks like a token.
 */
export const CUSTOM_KEYWORDS = [
  "x-path",
  "x-default-env",
  "x-default-doc",
  "x-fill-defaults",
  "x-enum-noun",
  "x-describe",
  "x-env-name",
];

const ENV_NAME = "x-env-name";
const compiled = new WeakMap<object, ValidateFunction>();

function compile(schema: SchemaNode): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true });
    for (const keyword of CUSTOM_KEYWORDS) if (keyword !== ENV_NAME) ajv.addKeyword(keyword);
    ajv.addKeyword({
      keyword: ENV_NAME,
      type: "string",
      schemaType: "boolean",
      errors: false,
      validate: (on: boolean, data: string) => !on || !looksLikeToken(data),
    });
    fn = ajv.compile(schema);
    compiled.set(schema, fn);
  }
  return fn;
}

function toKeyPath(instancePath: string, data: unknown): KeyPath {
  const path: KeyPath = [];
  let node = data;
  for (const raw of instancePath.split("/").slice(1)) {
    const seg = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    const key = Array.isArray(node) ? Number(seg) : seg;
    path.push(key);
    node = (node as Record<string | number, unknown> | undefined)?.[key];
  }
  return path;
}

/** The wording of one error; `hide` leaves the value out (it may be a secret). */
function message(e: ErrorObject, hide: boolean): string {
  const parent = e.parentSchema as SchemaNode;
  const got = hide ? "" : ` (got ${showValue(e.data)})`;
  switch (e.keyword) {
    case ENV_NAME: {
      return tokenNotName(typeof parent.default === "string" ? parent.default : undefined);
    }
    case "minItems":
      return `must have at least ${plural(e.params.limit, "item")}`;
    case "uniqueItems": {
      if (hide) return "must not list the same value twice";
      return `must not list ${showValue((e.data as unknown[])[e.params.j])} twice`;
    }
    case "enum":
      // a schema node may name what its values are: `"poll.cycle" is not a lifecycle point
      // (expected one of: …)` reads better than `must be one of: …`
      if (typeof parent["x-enum-noun"] === "string" && typeof e.data === "string" && !hide) {
        return `${showValue(e.data)} is not ${parent["x-enum-noun"]} ` +
          `(expected one of: ${(parent.enum as unknown[]).join(", ")})`;
      }
      return `must be ${describeSchema(parent)}${got}`;
    case "type":
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "const":
    case "pattern":
    case "minLength":
    case "anyOf":
      return `must be ${describeSchema(parent)}${got}`;
    default:
      return e.message ?? "is invalid";
  }
}

/**
 * Validates `data` against `schema`; every problem, located in `parsed` (through an alias: at
 * the alias, saying where the value and its anchor are), tokens masked, sorted by position.
 */
export function validateConfig(
  schema: SchemaNode,
  data: unknown,
  parsed: ParsedYaml,
  file: string,
): Problem[] {
  const validate = compile(schema);
  if (validate(data)) return [];
  const errors = validate.errors ?? [];
  // A value refused as a token is reported as that alone: not also as a bad name, and not as a
  // failed anyOf around it (`permissions.env: [ghp_…]` is "a token", not "true or a list").
  const tokenErrors = errors.filter((e) => e.keyword === ENV_NAME);
  const tokens = new Set(tokenErrors.map((e) => e.instancePath));
  const coversToken = (e: ErrorObject) =>
    e.keyword === "anyOf" && tokenErrors.some((t) => t.instancePath.startsWith(e.instancePath));
  // An anyOf reports once for itself; its branches' own failures are noise.
  const branches = errors.filter((e) => e.keyword === "anyOf").map((e) => e.schemaPath + "/");
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const e of errors) {
    if (e.keyword !== ENV_NAME && branches.some((prefix) => e.schemaPath.startsWith(prefix))) {
      continue;
    }
    if (tokens.has(e.instancePath) && e.keyword !== ENV_NAME) continue;
    if (coversToken(e)) continue;
    let path = toKeyPath(e.instancePath, data);
    let text: string;
    let key = false;
    if (e.keyword === "additionalProperties") {
      const name = String(e.params.additionalProperty);
      path = [...path, name];
      const known = Object.keys((e.parentSchema as SchemaNode).properties ?? {});
      // a pasted token gets no suggestion: it is not a misspelt key
      const guess = looksLikeToken(name) ? undefined : didYouMean(name, known);
      text = `unknown key "${maskTokens(name)}"` + (guess ? ` (did you mean "${guess}"?)` : "");
      key = true;
    } else if (e.keyword === "required") {
      text = `missing required key "${e.params.missingProperty}"`;
      key = parsed.locateKey(path) !== undefined;
    } else {
      text = message(e, isSecretPath(path));
    }
    const note = parsed.aliasNote(path);
    if (note) text += ` ${note}`;
    const at = locateNear(parsed, path, key);
    const shown = formatKeyPath(path);
    if (seen.has(`${shown}\n${text}`)) continue;
    seen.add(`${shown}\n${text}`);
    problems.push(maskProblem({ file, ...at, path: shown || undefined, message: text }));
  }
  return problems.sort(byPosition);
}

/**
 * Checks the environment variables that supply defaults (`x-default-env`, e.g.
 * `$GITHUB_API_URL`) against their key's schema, where the file leaves the key out (a key set in
 * the file wins over the variable, so then the variable is not used and not checked).
 */
export function envDefaultProblems(
  schema: SchemaNode,
  data: unknown,
  env: EnvReader,
): Problem[] {
  const problems: Problem[] = [];
  const walk = (s: SchemaNode, value: unknown, at: KeyPath): void => {
    for (const [key, sub] of Object.entries((s.properties ?? {}) as Record<string, SchemaNode>)) {
      const own = isMapping(value) ? value[key] : undefined;
      const name = sub["x-default-env"];
      const fromEnv = typeof name === "string" ? env(name) : undefined;
      if (fromEnv && own === undefined && !compile(sub)(envValue(sub, fromEnv))) {
        problems.push({
          path: `$${name}`,
          message: `must be ${describeSchema(sub)} (got ${showValue(fromEnv)}); ` +
            `fix it, unset it, or set ${formatKeyPath([...at, key])} in the config file`,
        });
      }
      if (sub.properties) walk(sub, own, [...at, key]);
    }
  };
  walk(schema, data, []);
  return problems;
}

/** A mapping's key, or `undefined`. */
function at(value: unknown, key: string): unknown {
  return isMapping(value) ? value[key] : undefined;
}

/**
 * The variables `routing.harnessEnv` and `routing.agentToken` must not name: the webhook secret's
 * (`webhooks.ghWebhook.secretEnv`) anywhere — it forges signed deliveries — and the daemon's own
 * GitHub token (`github.tokenEnv`, `GH_TOKEN`, `GITHUB_TOKEN`) in `harnessEnv`, where
 * `agentToken` is the way to hand the agent a token. Each naming is a problem at its place in the
 * file. Run on data the schema accepted.
 */
export function harnessEnvProblems(data: unknown, parsed: ParsedYaml, file: string): Problem[] {
  const hook = at(at(data, "webhooks"), "ghWebhook");
  const secretEnv = at(hook, "secretEnv");
  const secret = typeof secretEnv === "string" ? secretEnv : "THE_LOOP_GH_WEBHOOK_SECRET";
  const tokenEnv = at(at(data, "github"), "tokenEnv"); // its default is GITHUB_TOKEN
  const tokens = new Set(["GH_TOKEN", "GITHUB_TOKEN"]);
  if (typeof tokenEnv === "string") tokens.add(tokenEnv);
  const routing = at(hook, "routing");
  const problems: Problem[] = [];
  const problem = (path: KeyPath, key: boolean, message: string) => {
    const full = ["webhooks", "ghWebhook", "routing", ...path];
    problems.push({ file, ...locateNear(parsed, full, key), path: formatKeyPath(full), message });
  };
  const refuse = (path: KeyPath, key: boolean, name: string) =>
    problem(
      path,
      key,
      name === secret
        ? `${name} holds the webhook secret (webhooks.ghWebhook.secretEnv), which must never ` +
          "reach the agent (it forges signed deliveries): remove it"
        : `${name} holds the daemon's GitHub token, which is not handed to the agent: remove ` +
          "it, and to give the agent a token set routing.agentToken: {env: NAME} to a " +
          "narrower, fine-grained token's variable",
    );
  const harnessEnv = at(routing, "harnessEnv");
  const pass = at(harnessEnv, "pass");
  if (Array.isArray(pass)) {
    pass.forEach((name, i) => {
      if (name === secret || tokens.has(name)) refuse(["harnessEnv", "pass", i], false, name);
    });
  }
  const set = at(harnessEnv, "set");
  if (isMapping(set)) {
    for (const [name, value] of Object.entries(set)) {
      if (name === secret || tokens.has(name)) refuse(["harnessEnv", "set", name], true, name);
      else if (typeof value === "string" && looksLikeToken(value)) {
        // a secret never goes in this file: it is passed by its variable's name
        problem(
          ["harnessEnv", "set", name],
          false,
          "this looks like a token, and secrets never go in this file: put it in a variable of " +
            "the daemon's environment and name it in harnessEnv.pass instead",
        );
      }
    }
  }
  const agent = at(at(routing, "agentToken"), "env");
  if (agent === secret) refuse(["agentToken", "env"], false, agent);
  return problems.sort(byPosition);
}
