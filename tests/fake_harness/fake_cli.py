"""The documented command lines of the five harness CLIs, as the fakes check them (see mod.ts).

Each fake parses its argv against the flags its CLI documents (docs/harnesses.md cites them); an
unknown flag, a value outside a documented enum, or a flag in a form its CLI rejects is refused
as the real CLI does: the fake logs {"event": "rejected", "program", "argv", "error"} and exits 2.
`parse(program, argv)` answers {"sub": subcommand path, "flags": {name: [values]}, "args": [positionals]}.
"""
import re

V = "value"
S = "switch"

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)

# flag -> V (takes a value), S (a switch), or a list (a value from that enum); aliases -> the long name
CLAUDE = {
    "-p": S, "--print": S, "--verbose": S, "--output-format": ["text", "json", "stream-json"],
    "--input-format": ["text", "stream-json"], "--session-id": V, "--resume": V, "-r": V,
    "--continue": S, "-c": S, "--fork-session": S, "--model": V, "--fallback-model": V,
    "--effort": ["low", "medium", "high", "xhigh", "max"],
    "--permission-mode": ["default", "manual", "acceptEdits", "plan", "bypassPermissions",
                          "dontAsk", "auto"],
    "--dangerously-skip-permissions": S, "--max-turns": V, "--max-budget-usd": V,
    "--add-dir": V, "--allowedTools": V, "--disallowedTools": V, "--append-system-prompt": V,
    "--mcp-config": V, "--settings": V, "--include-partial-messages": S,
}
CURSOR = {
    "-p": S, "--print": S, "--output-format": ["text", "json", "stream-json"],
    "--stream-partial-output": S, "--resume": V, "--model": V, "-m": V, "--force": S, "-f": S,
    "--yolo": S, "--sandbox": ["enabled", "disabled"], "--trust": S, "--approve-mcps": S,
    "--workspace": V,
}
CODEX_SHARED = {
    "--model": V, "-m": V, "--config": V, "-c": V, "--cd": V, "-C": V, "--profile": V, "-p": V,
    "--add-dir": V, "--image": V, "-i": V, "--oss": S, "--enable": V, "--disable": V,
    "--sandbox": ["read-only", "workspace-write", "danger-full-access"],
    "-s": ["read-only", "workspace-write", "danger-full-access"],
    "--dangerously-bypass-approvals-and-sandbox": S, "--yolo": S,
}
CODEX_TUI = dict(CODEX_SHARED, **{
    "--ask-for-approval": ["untrusted", "on-failure", "on-request", "never"],
    "-a": ["untrusted", "on-failure", "on-request", "never"], "--search": S,
    "--no-alt-screen": S, "--full-auto": S,
})
CODEX_EXEC = dict(CODEX_SHARED, **{
    "--json": S, "--skip-git-repo-check": S, "--output-last-message": V, "-o": V,
    "--output-schema": V, "--color": ["always", "never", "auto"], "--ephemeral": S,
})
# `codex exec resume` takes only these (-s, -C, -m after `resume` are errors)
CODEX_EXEC_RESUME = {
    "--config": V, "-c": V, "--enable": V, "--disable": V, "--last": S, "--all": S, "--json": S,
}
GEMINI = {
    "--prompt": V, "-p": V, "--prompt-interactive": V, "-i": V,
    "--output-format": ["text", "json", "stream-json"], "-o": ["text", "json", "stream-json"],
    "--resume": V, "-r": V, "--session-id": V, "--model": V, "-m": V,
    "--approval-mode": ["default", "auto_edit", "yolo", "plan"], "--yolo": S, "-y": S,
    "--skip-trust": S, "--sandbox": S, "-s": S, "--debug": S, "-d": S,
    "--include-directories": V, "--list-sessions": S,
}
OPENCODE_RUN = {
    "--format": ["default", "json"], "--session": V, "-s": V, "--continue": S, "-c": S,
    "--fork": S, "--model": V, "-m": V, "--variant": V, "--agent": V, "--title": V,
    "--command": V, "--attach": V, "--port": V, "--share": S, "--auto": S, "--file": V, "-f": V,
}
OPENCODE_TUI = {
    "--session": V, "-s": V, "--continue": S, "-c": S, "--prompt": V, "--model": V, "-m": V,
    "--agent": V, "--port": V, "--hostname": V, "--auto": S, "--variant": V,
}

# the form a CLI's parser takes for `--flag=value`: clap, yargs, commander all do
EQUALS = True


class Rejected(Exception):
    pass


def parse_flags(spec, argv, max_args=None):
    flags, args, i, rest = {}, [], 0, False
    while i < len(argv):
        a = argv[i]
        if rest or not a.startswith("-") or a == "-":
            args.append(a)
        elif a == "--":
            rest = True
        else:
            name, value = (a.split("=", 1) + [None])[:2] if a.startswith("--") and "=" in a \
                else (a, None)
            kind = spec.get(name)
            if kind is None:
                raise Rejected(f"error: unexpected argument '{name}' found")
            if kind == S:
                if value is not None:
                    raise Rejected(f"error: {name} takes no value")
                flags.setdefault(name, []).append(True)
            else:
                if value is None:
                    i += 1
                    if i >= len(argv):
                        raise Rejected(f"error: {name} requires a value")
                    value = argv[i]
                if isinstance(kind, list) and value not in kind:
                    raise Rejected(f"error: invalid value '{value}' for '{name}' "
                                   f"[possible values: {', '.join(kind)}]")
                flags.setdefault(name, []).append(value)
        i += 1
    if max_args is not None and len(args) > max_args:
        raise Rejected(f"error: unexpected argument '{args[max_args]}' found")
    return flags, args


def parse(program, argv):
    if program == "claude":
        flags, args = parse_flags(CLAUDE, argv, 1)
        headless = "-p" in flags or "--print" in flags
        if headless and flags.get("--output-format") == ["stream-json"] and "--verbose" not in flags:
            raise Rejected("Error: When using --print, --output-format=stream-json requires --verbose")
        for sid in flags.get("--session-id", []):
            if not UUID.match(sid):
                raise Rejected("Error: Invalid session ID. Must be a valid UUID.")
        return {"sub": [], "flags": flags, "args": args}
    if program == "cursor-agent":
        if argv[:1] == ["create-chat"]:
            parse_flags({}, argv[1:], 0)
            return {"sub": ["create-chat"], "flags": {}, "args": []}
        flags, args = parse_flags(CURSOR, argv, 1)
        if "--trust" in flags and not ("-p" in flags or "--print" in flags):
            raise Rejected("Error: --trust can only be used in print (headless) mode")
        return {"sub": [], "flags": flags, "args": args}
    if program == "codex":
        if argv[:2] == ["exec", "resume"]:
            flags, args = parse_flags(CODEX_EXEC_RESUME, argv[2:], 2)
            return {"sub": ["exec", "resume"], "flags": flags, "args": args}
        if argv[:1] == ["exec"]:
            flags, args = parse_flags(CODEX_EXEC, argv[1:], 1)
            return {"sub": ["exec"], "flags": flags, "args": args}
        if argv[:1] == ["resume"]:
            flags, args = parse_flags(CODEX_TUI, argv[1:], 2)
            return {"sub": ["resume"], "flags": flags, "args": args}
        flags, args = parse_flags(CODEX_TUI, argv, 1)
        return {"sub": [], "flags": flags, "args": args}
    if program == "gemini":
        flags, args = parse_flags(GEMINI, argv, 1)
        if ("--yolo" in flags or "-y" in flags) and "--approval-mode" in flags:
            raise Rejected("Cannot use both --yolo (-y) and --approval-mode together.")
        for sid in flags.get("--session-id", []):
            if not UUID.match(sid):
                raise Rejected(f"Invalid session id: {sid}")
        return {"sub": [], "flags": flags, "args": args}
    if program == "opencode":
        if argv[:1] == ["run"]:
            flags, args = parse_flags(OPENCODE_RUN, argv[1:])
            return {"sub": ["run"], "flags": flags, "args": args}
        flags, args = parse_flags(OPENCODE_TUI, argv, 1)
        return {"sub": [], "flags": flags, "args": args}
    raise Rejected(f"unknown program {program}")


def first(flags, *names):
    for n in names:
        if n in flags:
            return flags[n][-1]
    return None
