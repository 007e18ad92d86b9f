/**
 * Validates parsed config data against the JSON Schema with ajv (all errors) and turns each
 * error into a located, friendly {@linkcode Problem}.
 *
 * @module
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import type { Problem } from "../errors.ts";
import { describeSchema, didYouMean, type SchemaNode, showValue } from "./_describe.ts";
import type { KeyPath, ParsedYaml } from "./_yaml.ts";

/** The annotation keywords our schema adds (ignored by validation, read by the loader). */
export const CUSTOM_KEYWORDS = ["x-path", "x-default-env", "x-fill-defaults", "x-enum-noun"];

const compiled = new WeakMap<object, ValidateFunction>();

function compile(schema: SchemaNode): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true });
    for (const keyword of CUSTOM_KEYWORDS) ajv.addKeyword(keyword);
    fn = ajv.compile(schema);
    compiled.set(schema, fn);
  }
  return fn;
}

/** `hooks[1].on[0]`-style rendering of a key path. */
export function formatKeyPath(path: KeyPath): string {
  return path.map((seg, i) => typeof seg === "number" ? `[${seg}]` : i === 0 ? seg : `.${seg}`)
    .join("");
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

function message(e: ErrorObject): string {
  const parent = e.parentSchema as SchemaNode;
  switch (e.keyword) {
    case "minItems":
      return `must have at least ${e.params.limit} item${e.params.limit === 1 ? "" : "s"}`;
    case "uniqueItems": {
      const list = e.data as unknown[];
      return `must not list ${showValue(list[e.params.j])} twice`;
    }
    case "enum":
      // a schema node may name what its values are: `"poll.cycle" is not a lifecycle point
      // (expected one of: …)` reads better than `must be one of: …`
      if (typeof parent["x-enum-noun"] === "string" && typeof e.data === "string") {
        return `${showValue(e.data)} is not ${parent["x-enum-noun"]} ` +
          `(expected one of: ${(parent.enum as unknown[]).join(", ")})`;
      }
      return `must be ${describeSchema(parent)} (got ${showValue(e.data)})`;
    case "type":
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "const":
    case "pattern":
    case "minLength":
    case "anyOf":
      return `must be ${describeSchema(parent)} (got ${showValue(e.data)})`;
    default:
      return e.message ?? "is invalid";
  }
}

/** Validates `data` against `schema`; every problem, located in `parsed`, sorted by position. */
export function validateConfig(
  schema: SchemaNode,
  data: unknown,
  parsed: ParsedYaml,
  file: string,
): Problem[] {
  const validate = compile(schema);
  if (validate(data)) return [];
  const errors = validate.errors ?? [];
  // An anyOf reports once for itself; its branches' own failures are noise.
  const branches = errors.filter((e) => e.keyword === "anyOf").map((e) => e.schemaPath + "/");
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const e of errors) {
    if (branches.some((prefix) => e.schemaPath.startsWith(prefix))) continue;
    let path = toKeyPath(e.instancePath, data);
    let text: string;
    let at = parsed.locate(path);
    if (e.keyword === "additionalProperties") {
      const key = String(e.params.additionalProperty);
      path = [...path, key];
      const known = Object.keys((e.parentSchema as SchemaNode).properties ?? {});
      const guess = didYouMean(key, known);
      text = `unknown key "${key}"` + (guess ? ` (did you mean "${guess}"?)` : "");
      at = parsed.locateKey(path);
    } else if (e.keyword === "required") {
      text = `missing required key "${e.params.missingProperty}"`;
      at = parsed.locateKey(path) ?? at;
    } else {
      text = message(e);
      // `*Env` keys name a variable; a value that is not a name may be a pasted secret.
      if (/Env$/.test(String(path.at(-1)))) text = text.replace(/ \(got .*\)$/, "");
    }
    const shown = formatKeyPath(path);
    if (seen.has(`${shown}\n${text}`)) continue;
    seen.add(`${shown}\n${text}`);
    problems.push({ file, line: at?.line, col: at?.col, path: shown || undefined, message: text });
  }
  return problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.col ?? 0) - (b.col ?? 0));
}
