/**
 * Fuzzing the config loader: a few thousand mutations of valid configs (random tags, anchors and
 * aliases, deep nesting, duplicate and odd keys, tokens spliced in, truncation, random bytes),
 * each checked by `configFromText` — all `loadConfig` does once it has read the file (reading is
 * left out: thousands of file writes would cost more than the checks). For every input it must
 * return or throw a `ProblemsError` — never anything else — every problem must carry
 * `file:line:col`, and no problem may contain a token that was spliced in.
 *
 * Deterministic: a seeded PRNG drives every choice; a failure names the seed and the case.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { formatProblem, ProblemsError } from "../errors.ts";
import { CONFIG_TEMPLATE, configFromText } from "./mod.ts";
import { envOf } from "./_test_utils.ts";

const SEED = 0x7e1008;
const CASES = 3000;

/** mulberry32: a small, seeded, deterministic PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VALID = [
  CONFIG_TEMPLATE,
  [
    "version: 0.1.0",
    "state: { root: run }",
    "github: { apiUrl: https://ghe.example/api/v3, tokenEnv: GH_TOKEN }",
    "polling:",
    "  intervalSeconds: 30",
    "  sources:",
    "    - { provider: github, repos: [octo/repo, octo/other], label: the-loop }",
    "eventLog: { enabled: true, path: logs/e.jsonl }",
    "hooks:",
    "  - name: policy",
    "    path: hooks/policy.ts",
    "    with: { board: platform, limits: { max: 3, names: [a, b] } }",
    "    permissions: { net: [roster.acme.example:443], env: [ROSTER_TOKEN] }",
    "  - name: remote",
    "    url: https://hooks.acme.example/rpc",
    "    tokenEnv: ACME_TOKEN",
    "    headers: { X-Team: platform }",
    "  - name: audit",
    "    command: [./audit.py, --strict]",
    "    env: [AUDIT_TOKEN]",
    "collaborators:",
    "  - { handle: '@me', roles: [engineer] }",
  ].join("\n") + "\n",
  "webhooks:\n  ghWebhook:\n    port: 8080\n    routing:\n      runner: tmux\n      tmux: { remainOnExit: true }\n",
];

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const TAGS = [
  "!!binary",
  "!!omap",
  "!!set",
  "!!timestamp",
  "!!pairs",
  "!!merge",
  "!!int",
  "!!str",
  "!!float",
  "!!bool",
  "!!null",
  "!!map",
  "!!seq",
  "!foo",
  "!",
  "!<tag:example.com,2000:x>",
  "!e!x",
];
const ODD_KEYS = [
  "~",
  '""',
  "? [a, b]",
  "? {a: 1}",
  "<<",
  "'<<'",
  "__proto__",
  "1",
  "1.0",
  "true",
  "null",
  "*a",
  "&k key",
  "constructor",
  "hasOwnProperty",
];
const SNIPPETS = [
  "%YAML 1.1\n---\n",
  "---\n",
  "\n---\nextra: 1\n",
  "base: &base {intervalSeconds: sixty}\npolling: *base\n",
  "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n" +
  "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n" +
  "e: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n",
  "loop: &l [*l]\n",
  "<<: *nothing\n",
  'with: {1: first, "1": second}\n',
];

class Mutator {
  readonly tokens: string[] = [];
  constructor(readonly rand: () => number) {}

  int(n: number): number {
    return Math.floor(this.rand() * n);
  }
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)];
  }
  word(n: number): string {
    let s = "";
    for (let i = 0; i < n; i++) s += ALNUM[this.int(ALNUM.length)];
    return s;
  }

  /** A fresh token-shaped string; remembered so the check can look for it. */
  token(): { text: string; secret: string } {
    const kind = this.int(6);
    let text: string, secret: string;
    if (kind === 0) text = secret = `gh${this.pick(["p", "o", "u", "s", "r"])}_${this.word(36)}`;
    else if (kind === 1) text = secret = `github_pat_${this.word(22)}_${this.word(30)}`;
    else if (kind === 2) text = secret = `xoxb-${this.word(12)}-${this.word(24)}`;
    else if (kind === 3) {
      // the sk- shape is recognized only where a word starts (`risk-…` is not a key): splice it so
      text = ` sk-proj-${this.word(8)}1a${this.word(20)}`;
      secret = text.trim();
    } else if (kind === 4) {
      secret = this.word(8) + "9Z" + this.word(22);
      text = `Bearer ${secret}`;
    } else text = secret = `ghp_${this.word(40)}`;
    this.tokens.push(secret);
    return { text, secret };
  }

  /** Inserts `piece` at a random offset of `text`. */
  splice(text: string, piece: string): string {
    const at = this.int(text.length + 1);
    return text.slice(0, at) + piece + text.slice(at);
  }

  mutate(text: string): string {
    const lines = text.split("\n");
    const line = () => this.int(lines.length);
    switch (this.int(13)) {
      case 0: { // a random tag before a value
        const i = line();
        lines[i] = lines[i].replace(/: /, `: ${this.pick(TAGS)} `);
        return lines.join("\n");
      }
      case 1: { // an anchor on one value, an alias (maybe undefined) on another
        const [i, j] = [line(), line()];
        lines[i] = lines[i].replace(/: /, ": &a ");
        lines[j] = lines[j].replace(/: .*/, `: *${this.pick(["a", "b", "a"])}`);
        return lines.join("\n");
      }
      case 2: { // deep nesting, flow or block
        const n = 1 + this.int(200);
        if (this.rand() < 0.5) return this.splice(text, "[".repeat(n) + "]".repeat(n));
        let block = "deep:\n";
        for (let k = 1; k <= n; k++) block += `${"  ".repeat(k)}k${k}:\n`;
        return block + text;
      }
      case 3: { // a duplicated line
        const i = line();
        lines.splice(i, 0, lines[i]);
        return lines.join("\n");
      }
      case 4: { // an odd key
        const i = line();
        const indent = lines[i].match(/^\s*(- )?/)?.[0].replace("-", " ") ?? "";
        lines.splice(i, 0, `${indent}${this.pick(ODD_KEYS)}: x`);
        return lines.join("\n");
      }
      case 5: // a token spliced in anywhere
        return this.splice(text, this.token().text);
      case 6: { // a token as a key or a value where secrets are refused or echoed
        const t = this.token().text.trim();
        return this.pick([
          `github: { ${t}: 1 }\n`,
          `github: { tokenEnv: ${t} }\n`,
          `hooks:\n  - name: h\n    path: h.ts\n    permissions: { env: [${t}] }\n`,
          `hooks:\n  - name: h\n    url: https://h.example/rpc\n    headers: { ${t}: x }\n`,
          `polling: { intervalSeconds: "${t}" }\n`,
          `${t}: &${t} !${t} x\n`,
        ]) + text;
      }
      case 7: // truncated
        return text.slice(0, this.int(text.length + 1));
      case 8: { // random bytes
        let junk = "";
        for (let k = 0, n = 1 + this.int(20); k < n; k++) {
          junk += String.fromCharCode(this.int(this.rand() < 0.8 ? 128 : 0x3000));
        }
        return this.splice(text, junk);
      }
      case 9: // a snippet known to be hostile
        return this.pick([true, false]) ? this.pick(SNIPPETS) + text : text + this.pick(SNIPPETS);
      case 10: { // a line's indentation changed
        const i = line();
        lines[i] = " ".repeat(this.int(6)) + lines[i].trimStart();
        return lines.join("\n");
      }
      case 11: { // a YAML indicator dropped in
        return this.splice(
          text,
          this.pick([
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            "? ",
            "- ",
            "&",
            "*",
            "!",
            "|",
            ">",
            "'",
            '"',
            "#",
            "%",
            "@",
            "`",
            "\t",
          ]),
        );
      }
      default: { // two lines swapped
        const [i, j] = [line(), line()];
        [lines[i], lines[j]] = [lines[j], lines[i]];
        return lines.join("\n");
      }
    }
  }
}

Deno.test(`fuzz: ${CASES} mutated configs load or fail with located, masked problems`, async () => {
  const rand = prng(SEED);
  const m = new Mutator(rand);
  const dir = "/srv/fuzz";
  const file = join(dir, ".the-loop/cli-config.yaml");
  const env = envOf({ HOME: "/home/fuzz" });
  const outcomes = { loaded: 0, refused: 0 };
  for (let n = 0; n < CASES; n++) {
    let text = m.pick(VALID);
    for (let k = 0, rounds = 1 + m.int(4); k < rounds; k++) text = m.mutate(text);
    const tokens = m.tokens.splice(0);
    const where = `seed ${SEED}, case ${n}:\n${text.slice(0, 2000)}`;
    let error: unknown;
    try {
      await configFromText(text, { file, env, cwd: dir });
      outcomes.loaded++;
      continue;
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof ProblemsError, `${where}\nthrew ${error}`);
    outcomes.refused++;
    assert.ok(error.problems.length > 0, where);
    for (const p of error.problems) {
      assert.ok(
        p.file === file && p.line! >= 1 && p.col! >= 1,
        `${where}\nunlocated: ${formatProblem(p)}`,
      );
    }
    const shown = error.message + "\n" + JSON.stringify(error.problems);
    for (const token of tokens) {
      assert.ok(!shown.includes(token), `${where}\nleaked ${token} in:\n${shown}`);
    }
  }
  // both outcomes occur, so the mutations neither always break nor never break a config
  assert.ok(outcomes.loaded > CASES / 20 && outcomes.refused > CASES / 2, JSON.stringify(outcomes));
});
