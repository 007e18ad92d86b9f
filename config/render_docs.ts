/**
 * Generates `docs/config.md` from the schema, so the reference can never drift from what is
 * validated: `deno task docs` rewrites it, and a test fails when the committed file differs.
 *
 * @module
 */
import { CONFIG_SCHEMA } from "./mod.ts";
import type { SchemaNode } from "./describe.ts";
import { INTRO } from "./_docs_intro.ts";
import { formatMarkdown } from "../tools/fmt_markdown.ts";

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

function typeOf(s: SchemaNode): string {
  if (Array.isArray(s.anyOf)) return s.anyOf.map(typeOf).join(" | ");
  if ("const" in s) return `\`${JSON.stringify(s.const)}\``;
  if (Array.isArray(s.enum)) {
    return s.enum.map((v: string) => `\`${JSON.stringify(v).replace(/^"(.+)"$/, "$1")}\``).join(
      " | ",
    );
  }
  const bounds = [
    s.minimum !== undefined && s.maximum !== undefined ? `${s.minimum}–${s.maximum}` : "",
    s.minimum !== undefined && s.maximum === undefined ? `≥ ${s.minimum}` : "",
    s.exclusiveMinimum !== undefined ? `> ${s.exclusiveMinimum}` : "",
  ].join("");
  if (s.type === "array") {
    return `${s.items?.type === "object" ? "object" : s.items?.type ?? "any"}[]`;
  }
  if (s.type === "object" && !s.properties) return "mapping";
  return [s.type, bounds].filter(Boolean).join(" ");
}

function defaultOf(s: SchemaNode, required: boolean): string {
  if (required) return "**required**";
  if (typeof s["x-default-doc"] === "string") return s["x-default-doc"];
  if (s["x-default-env"]) return `\`$${s["x-default-env"]}\`, else \`${s.default}\``;
  if (s.default === undefined) return "—";
  if (typeof s.default === "object" && !Array.isArray(s.default)) return "";
  const text = typeof s.default === "string"
    ? (s.default === "" ? '""' : s.default)
    : JSON.stringify(s.default);
  return `\`${text}\``;
}

function sections(s: SchemaNode, path: string, out: string[]): void {
  const props = Object.entries((s.properties ?? {}) as Record<string, SchemaNode>);
  const required: string[] = s.required ?? [];
  out.push(`### \`${path || "(top level)"}\``, "", cell(s.description ?? ""));
  if (s["x-fill-defaults"] === false) {
    out.push(
      "",
      "Entries are kept as written: the defaults below are applied when hooks load, by kind.",
    );
  }
  out.push("", "| Key | Type | Default | Description |", "|---|---|---|---|");
  for (const [key, sub] of props) {
    const note = sub["x-path"] ? " *(path)*" : "";
    out.push(
      `| \`${key}\` | ${cell(typeOf(sub))} | ${cell(defaultOf(sub, required.includes(key)))} | ${
        cell(sub.description ?? "")
      }${note} |`,
    );
  }
  out.push("");
  for (const [key, sub] of props) {
    const at = path ? `${path}.${key}` : key;
    if (sub.type === "object" && sub.properties) sections(sub, at, out);
    if (sub.type === "array" && sub.items?.properties) sections(sub.items, `${at}[]`, out);
  }
}

/** The reference's Markdown, before formatting. */
export function renderConfigDocs(schema: SchemaNode = CONFIG_SCHEMA): string {
  const out = [INTRO.trim(), ""];
  sections(schema, "", out);
  return out.join("\n");
}

/** Where the generated reference lives. */
export const DOCS_PATH = new URL("../docs/config.md", import.meta.url).pathname;

if (import.meta.main) {
  await Deno.writeTextFile(DOCS_PATH, await formatMarkdown(renderConfigDocs()));
  console.log(`wrote ${DOCS_PATH}`);
}
