/**
 * The hand-written part of `docs/config.md`; the key tables after it are generated from the
 * schema by `render_docs.ts`.
 *
 * @module
 */

/** Prose placed before the generated key reference. */
export const INTRO = `
# CLI config reference (\`cli-config.yaml\`)

<!-- Generated from schema/cli-config.schema.json by \`deno task docs\`; edit the schema (or
config/_docs_intro.ts), not this file. A test fails when the two differ. -->

The CLI config is read by the-loop's daemon commands. It is YAML, validated against the JSON
Schema \`schema/cli-config.schema.json\` (draft 2020-12). \`the-loop init\` writes a commented
starting file with the schema beside it, so editors using yaml-language-server complete and
check keys offline. \`the-loop config show\` prints the resolved config with every default filled;
\`the-loop config validate\` checks it.

## Which file is read

The first of these that applies wins:

1. \`--config PATH\` (\`-c\`), before the subcommand: \`the-loop --config ops.yaml config show\`.
2. \`$THE_LOOP_CLI_CONFIG\`.
3. \`.the-loop/cli-config.yaml\` in the working directory, else in its parent, and so on up to the
   filesystem root — the way git finds \`.git\` — so every command run anywhere inside a project
   reads the project's config. The nearest one wins.
4. \`~/.the-loop/cli-config.yaml\` (\`$HOME\`).

A file named by \`--config\` or \`$THE_LOOP_CLI_CONFIG\` must exist: a missing one is an error
(\`config file not found: PATH (from --config)\`, suggesting \`the-loop init\`). When the
lookup (3 and 4) finds nothing, every key takes its default, and the commands say where they
looked. \`the-loop config show\` names the file and how it was found; with \`--format json\` it
gives \`path\`, \`source\` (\`flag\`, \`env\`, \`found\`, \`home\` or \`none\`) and \`searched\`, the
\`.the-loop\` folders looked in:

\`\`\`text
$ cd /work/app/docs && the-loop config show | head -1
# from: /work/app/.the-loop/cli-config.yaml (found in ../.the-loop)
$ cd /tmp/scratch && the-loop config validate
ok: no config file found in ./.the-loop and 2 parent folders up to /, then ~/.the-loop; defaults apply
\`\`\`

A config the lookup finds is read only when it belongs to you (the owner of \`$HOME\`), to root
or to the owner of the working directory — like git's \`safe.directory\` check, since a config can
name programs to run and the walk passes folders others can write to, such as \`/tmp\`. Name any
other file with \`--config\` to use it anyway. Relative paths in the file resolve against the
file's own directory, wherever the command runs (see below).

## Reading the YAML

The file is plain YAML 1.2 (the core schema): strings, numbers, \`true\`/\`false\`, null, mappings
and lists. Anything else is refused, located, rather than read in some other way: tags beyond the
core ones (\`!!binary\`, \`!!omap\`, \`!!set\`, \`!!timestamp\`, \`!custom\`; a \`%YAML 1.1\` line
changes nothing), a core tag that does not fit its value (\`!!int abc\`), merge keys (\`<<\`; quote
it for a literal key), keys that are empty, null, a list, a mapping or an alias, keys that are
equal once read as strings (\`1\` and \`"1"\`), more than one document, nesting deeper than 64
levels, aliases with no anchor before them or inside their own anchor, and aliases that add more
than 10,000 values (an alias bomb). Anchors and aliases are otherwise fine; a problem in a value
that comes through an alias is reported at the alias, naming where the value and its anchor are.

## Errors

A file that cannot be read, is not valid YAML, or breaks the schema stops the command with
exit 1, and **every** problem is listed, one per line, with the file, line, column and key path:

\`\`\`text
/home/me/.the-loop/cli-config.yaml:14:20: polling.intervalSeconds: must be an integer ≥ 1 (got "sixty")
/home/me/.the-loop/cli-config.yaml:15:3: polling.intervalSecond: unknown key "intervalSecond" (did you mean "intervalSeconds"?)
\`\`\`

Unknown keys are errors everywhere (only \`hooks[].with\` and \`hooks[].headers\` are free-form).

## Paths and \`state.root\`

- A relative path written in the file resolves against **the file's own directory**, never the
  working directory; \`~/\` expands to \`$HOME\`. Keys marked *(path)* below are paths. Without a
  file, relative defaults resolve against the working directory. In the resolved config every
  path is absolute. A path key may not be empty, except where empty means something:
  \`promptTemplate\` and \`spawnPromptTemplate\` (the built-in template) and \`spawnWorkdir\` (the
  daemon's own working directory) stay empty.
- \`state.root\` is where everything the CLI generates lives. When it is not set:
  - with no config file: \`<working directory>/.the-loop\`;
  - with a file whose directory is itself named \`.the-loop\` (the usual
    \`.the-loop/cli-config.yaml\`): that directory;
  - otherwise: a \`.the-loop\` directory beside the file.
- The root fills in every generated path you leave out; a path you set explicitly is used as
  written (resolved against the file's directory):

| What | Key | Default |
|---|---|---|
| session registry | \`webhooks.ghWebhook.routing.registryDir\` | \`<state.root>/sessions\` |
| control records | (inside the registry) | \`<registryDir>/control\` |
| poll state | \`polling.stateFile\` | \`<state.root>/sessions/poll-state.json\` |
| event log | \`eventLog.path\` | \`<state.root>/logs/events.jsonl\` |
| webhook receiver pidfile | \`webhooks.ghWebhook.pidfile\` | \`<state.root>/gh-webhook.pid\` |
| poller pidfile | \`polling.pidfile\` | \`<state.root>/poll.pid\` |
| per-work-item checkouts | \`webhooks.ghWebhook.routing.workspace.root\` | \`<state.root>/workspaces\` |

## Other defaults

- \`github.apiUrl\` defaults to \`$GITHUB_API_URL\` when that is set, else
  \`https://api.github.com\`. It must be an \`https://\` URL, or \`http://\` to 127.0.0.1,
  localhost or [::1] (local test setups); a \`$GITHUB_API_URL\` that is not is an error
  (\`$GITHUB_API_URL: must be an https:// URL …\`) whenever the file leaves \`github.apiUrl\` out.
- Secrets never go in this file: \`github.tokenEnv\`, \`webhooks.ghWebhook.secretEnv\`,
  \`hooks[].tokenEnv\` and \`hooks[].env\` hold the **names** of environment variables. A value
  there that looks like a token is refused, without being printed: one starting with a GitHub
  token prefix (\`ghp_\`, \`gho_\`, \`ghu_\`, \`ghs_\`, \`ghr_\`, \`github_pat_\`), or one with an
  \`_\`-separated part of 20 or more characters mixing letters and digits (the words of a variable
  name are shorter). Error messages never repeat values under \`headers\` or under keys that
  name a secret, and mask anything token-shaped elsewhere.
- \`hooks[]\` entries are kept exactly as written; their defaults depend on the hook's kind
  (module, remote or command) and are applied when the hooks load, which also checks the rules
  the schema cannot express (exactly one of \`path\`, \`url\`, \`command\`; which keys fit which
  kind; the URL scheme).

# Key reference
`;
