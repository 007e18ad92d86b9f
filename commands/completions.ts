/**
 * `the-loop completions bash|zsh|fish`: prints a shell completion script generated from the
 * program itself — its commands, subcommands, flags and flag choices — so it cannot drift from
 * the code. Install: `the-loop completions bash > ~/.local/share/bash-completion/completions/the-loop`,
 * `the-loop completions zsh > "${fpath[1]}/_the-loop"`,
 * `the-loop completions fish > ~/.config/fish/completions/the-loop.fish`.
 *
 * @module
 */
import type { Command, Option } from "commander";
import type { CliContext } from "./context.ts";

const SHELLS = ["bash", "zsh", "fish"] as const;
type Shell = typeof SHELLS[number];

/** Registers `completions`. */
export function register(program: Command, ctx: CliContext): void {
  program.command("completions")
    .description("print a shell completion script (bash, zsh or fish) for the-loop")
    .addArgument(
      program.createArgument("<shell>", "the shell").choices(SHELLS as unknown as string[]),
    )
    .action((shell: Shell) => ctx.write(completionScript(program, shell)));
}

/** One command of the tree: its path of names, subcommands and flags. */
interface Node {
  path: string[];
  subs: { name: string; description: string }[];
  flags: Flag[];
}

interface Flag {
  names: string[];
  description: string;
  takesValue: boolean;
  /** Its value names a file (`<file>`, `<path>`, `<dir>`). */
  file: boolean;
  choices?: readonly string[];
}

function flagOf(o: Option): Flag {
  return {
    names: [o.short, o.long].filter((n): n is string => !!n),
    description: o.description,
    takesValue: o.required || o.optional,
    file: /<(?:file|path|dir)/.test(o.flags),
    ...(o.argChoices ? { choices: o.argChoices } : {}),
  };
}

/** Every command of `program` with its flags (its default subcommand's too, and the globals). */
export function commandTree(program: Command): Node[] {
  const globals = program.options.map(flagOf);
  const help = flagOf(program.createOption("-h, --help", "show help"));
  const nodes: Node[] = [];
  const walk = (cmd: Command, path: string[]) => {
    const name = (cmd as unknown as { _defaultCommandName?: string })._defaultCommandName;
    const fallback = name ? cmd.commands.find((c) => c.name() === name) : undefined;
    const own = [...cmd.options, ...(fallback?.options ?? [])].filter((o) => !o.hidden);
    const flags = [...new Map(own.map((o) => [o.long ?? o.short, flagOf(o)])).values()];
    // a hidden command (`demo agent`, run by the daemon) is offered to no one
    const subs = cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
    nodes.push({
      path,
      subs: subs.map((c) => ({ name: c.name(), description: c.description() })),
      flags: path.length === 0 ? [...flags, help] : [...flags, help, ...globals],
    });
    for (const sub of subs) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  return nodes;
}

/** The completion script for `shell`. */
export function completionScript(program: Command, shell: Shell): string {
  const nodes = commandTree(program);
  if (shell === "bash") return bash(nodes);
  if (shell === "zsh") return zsh(nodes);
  return fish(nodes);
}

// A command path as the scripts spell it: " hooks test" (a leading space; "" is the root).
const key = (path: string[]) => path.map((p) => " " + p).join("");
// Single-quoted for a POSIX shell (fish takes the same quoting for these texts).
const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
const qFish = (s: string) => `'${s.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;

/** The `case` arms shared by bash and zsh: the command path and the candidates. */
function shellCases(nodes: Node[], complete: (words: string[]) => string): {
  paths: string;
  values: string;
  words: string;
} {
  const paths = nodes.filter((n) => n.path.length > 0).map((n) => `"${key(n.path)}"`).join("|");
  const values: string[] = [];
  for (const n of nodes) {
    for (const f of n.flags.filter((f) => f.takesValue)) {
      const pattern = f.names.map((name) => `"${key(n.path)}:${name}"`).join("|");
      values.push(
        `    ${pattern}) ${
          f.choices ? complete([...f.choices]) : f.file ? "__the_loop_files" : complete([])
        }; return ;;`,
      );
    }
  }
  const words = nodes.map((n) =>
    `    "${key(n.path)}") ${
      complete([...n.subs.map((s) => s.name), ...n.flags.flatMap((f) => f.names)])
    } ;;`
  );
  return { paths, values: values.join("\n"), words: words.join("\n") };
}

/** The part both shells share: the command path from the words so far, then the cases. */
function walk(c: ReturnType<typeof shellCases>): string {
  return `    case "$cmdpath $w" in
${c.paths.length ? `      ${c.paths}) cmdpath="$cmdpath $w" ;;\n` : ""}    esac
  done
  case "$cmdpath:$prev" in
${c.values}
  esac
  case "$cmdpath" in
${c.words}
  esac
}`;
}

function bash(nodes: Node[]): string {
  const c = shellCases(
    nodes,
    (words) => `COMPREPLY=($(compgen -W ${q(words.join(" "))} -- "$cur"))`,
  );
  return `# bash completion for the-loop (generated by 'the-loop completions bash')
__the_loop_files() { COMPREPLY=($(compgen -f -- "$cur")); }
_the_loop() {
  local cur prev w i cmdpath=""
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
${walk(c)}
complete -F _the_loop the-loop
`;
}

function zsh(nodes: Node[]): string {
  const c = shellCases(nodes, (words) => `compadd -- ${words.map(q).join(" ")}`);
  return `#compdef the-loop
# zsh completion for the-loop (generated by 'the-loop completions zsh')
__the_loop_files() { _files; }
_the_loop() {
  local w i cmdpath="" prev="\${words[CURRENT-1]}"
  for ((i = 2; i < CURRENT; i++)); do
    w="\${words[i]}"
${walk(c)}
compdef _the_loop the-loop
`;
}

function fish(nodes: Node[]): string {
  const lines = [
    "# fish completion for the-loop (generated by 'the-loop completions fish')",
    "complete -c the-loop -f",
  ];
  const when = (path: string[], subs: string[]) => {
    const conds = path.length === 0
      ? ["__fish_use_subcommand"]
      : path.map((p) => `__fish_seen_subcommand_from ${p}`);
    if (path.length > 0 && subs.length) {
      conds.push(`not __fish_seen_subcommand_from ${subs.join(" ")}`);
    }
    return qFish(conds.join("; and "));
  };
  for (const n of nodes) {
    const subs = n.subs.map((s) => s.name);
    for (const s of n.subs) {
      lines.push(
        `complete -c the-loop -n ${when(n.path, subs)} -a ${s.name} -d ${qFish(s.description)}`,
      );
    }
    for (const f of n.flags) {
      const names = f.names.map((name) =>
        name.startsWith("--") ? `-l ${name.slice(2)}` : `-s ${name.slice(1)}`
      );
      const value = f.choices
        ? ` -xa ${qFish(f.choices.join(" "))}`
        : f.file
        ? " -r -F"
        : f.takesValue
        ? " -x"
        : "";
      const cond = n.path.length === 0
        ? "__fish_use_subcommand"
        : n.path.map((p) => `__fish_seen_subcommand_from ${p}`).join("; and ");
      lines.push(
        `complete -c the-loop -n ${qFish(cond)} ${names.join(" ")}${value} -d ${
          qFish(f.description)
        }`,
      );
    }
  }
  return lines.join("\n") + "\n";
}
