"""The fake `claude` / `cursor-agent` the tests put first on PATH (see mod.ts).

Every invocation appends one JSON line to $FAKE_HARNESS_LOG:
  {"event": "boot", "program", "argv", "cwd", "stdin", "pid", "ts", "mode", "session"}
Headless (`-p`): prints the result object a real harness prints with `--output-format json`
and exits $FAKE_HARNESS_EXIT (default 0; non-zero prints no result), after $FAKE_HARNESS_SLEEP_MS
(default 0). As claude, the result carries what the run used when asked (FAKE_HARNESS_COST,
FAKE_HARNESS_TOKENS, FAKE_HARNESS_TURNS: see usage_fields); with FAKE_HARNESS_CAPPED=turns|budget
it is the error result of a run stopped by its `--max-turns` / `--max-budget-usd` cap, and the
fake exits 1 after printing it.
Interactive (no `-p`): prints a ready line, then logs every stdin line it reads as
  {"event": "input", "line", "session", "pid", "ts"}
and, on a terminal, shows what it read as a TUI does (the terminal's echo off, one write per read)
until EOF (logged as {"event": "eof"}) or a signal. With FAKE_HARNESS_RESUME_FAIL=1 a `--resume` boot exits 1 at once;
with FAKE_HARNESS_IGNORE_TERM=1 it ignores SIGTERM (only SIGKILL ends it).
With FAKE_HARNESS_TUI=1 interactive mode is a TUI as Claude Code's is (see run_tui): raw mode,
bracketed paste on, its tty read byte by byte, one {"event": "submit"} per Enter outside a paste.

An agent that acts (interactive mode, both kinds): with FAKE_HARNESS_ACT=1, for each prompt it
receives (the boot prompt in its argv, and each text pasted into it afterwards: a paste is what
arrives until its input is quiet for ACT_QUIET_S, or, in the TUI, what one Enter submits) it runs
the first command the prompt spells as `the-loop advance --outcome <o>` (in backticks), as the
agent of a loop node does to finish it. With FAKE_HARNESS_ASK=<text> it runs
`the-loop ask --question <text>` once, right after it booted. Either command runs with the fake's
own environment, `the-loop` found on its own PATH (the daemon puts its launcher first there), one
at a time in the order asked, beside the reading (a command never stalls the input), each logged
when it ended as
  {"event": "ran", "argv", "path", "exit", "stdout", "stderr", "session", "pid", "ts"}
(`argv` as asked, `the-loop` first; `path` the file PATH found for it; exit 127 when no
`the-loop` is on PATH).
"""
import json
import os
import queue
import re
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid

sys.dont_write_bytecode = True
import fake_cli  # noqa: E402  (beside this file: the fakes' sys.path has it)


_log_fd = None


def write_log(entries):
    """Appends the entries in one write on an O_APPEND fd: lines of concurrent fakes never mix."""
    global _log_fd
    path = os.environ.get("FAKE_HARNESS_LOG")
    if not path:
        return
    if _log_fd is None:
        # kept open: a pasted prompt is dozens of lines, each logged as it is read
        _log_fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(_log_fd, "".join(json.dumps(e) + "\n" for e in entries).encode())


def log(entry):
    write_log([dict(entry, pid=os.getpid(), ts=time.time())])


def value_after(argv, flag):
    for i, a in enumerate(argv[:-1]):
        if a == flag:
            return argv[i + 1]
    return None


def environ():
    """The process's own environment as the kernel holds it (/proc/self/environ), as a dict."""
    try:
        with open("/proc/self/environ", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    pairs = (e.decode(errors="replace").split("=", 1) for e in raw.split(b"\0") if e)
    return {p[0]: (p[1] if len(p) > 1 else "") for p in pairs}


# the command a loop's agent node spells out to finish it, in backticks
ADVANCE = re.compile(r"`(the-loop advance --outcome [a-z0-9-]+)`")
# how long the input stays quiet before what arrived counts as one pasted prompt
ACT_QUIET_S = 0.3
# how long one command may run
RUN_TIMEOUT_S = 120

_commands = None


def run_command(argv, session):
    """Runs argv (`the-loop` resolved on the fake's own PATH) and logs a `ran` entry."""
    program = shutil.which(argv[0], path=os.environ.get("PATH", ""))
    if program is None:
        log({"event": "ran", "argv": argv, "exit": 127, "stdout": "",
             "stderr": f"fake harness: no {argv[0]} on PATH", "session": session})
        return
    try:
        done = subprocess.run([program, *argv[1:]], env=dict(os.environ), stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=RUN_TIMEOUT_S)
        code, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as e:
        code, out, err = -1, e.stdout or b"", (e.stderr or b"") + b"\nfake harness: timed out"
    log({"event": "ran", "argv": argv, "path": program, "exit": code, "session": session,
         "stdout": out.decode("utf-8", "replace"), "stderr": err.decode("utf-8", "replace")})


def enqueue(argv, session):
    """Runs argv on the fake's one command thread, after the commands asked before it."""
    global _commands
    if _commands is None:
        _commands = queue.Queue()

        def work():
            while True:
                args, sess = _commands.get()
                run_command(args, sess)

        threading.Thread(target=work, daemon=True).start()
    _commands.put((argv, session))


def act_on(text, session):
    """FAKE_HARNESS_ACT=1: runs the first `the-loop advance --outcome O` the prompt spells out."""
    if os.environ.get("FAKE_HARNESS_ACT") != "1":
        return
    m = ADVANCE.search(text)
    if m:
        enqueue(m.group(1).split(), session)


def ask_once(session):
    """FAKE_HARNESS_ASK=<text>: `the-loop ask --question <text>`, once, after the boot."""
    question = os.environ.get("FAKE_HARNESS_ASK")
    if question:
        enqueue(["the-loop", "ask", "--question", question], session)


def main(program):
    if os.environ.get("FAKE_HARNESS_IGNORE_TERM") == "1":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # before the boot line tests wait for
    argv = sys.argv[1:]
    try:
        parsed = fake_cli.parse(program, argv)
    except fake_cli.Rejected as e:
        log({"event": "rejected", "program": program, "argv": argv, "error": str(e)})
        sys.stderr.write(f"{e}\n")
        sys.exit(2)
    if program in OTHERS or parsed["sub"] == ["create-chat"]:
        return OTHERS.get(program, main_cursor_issue)(argv, parsed)
    headless = "-p" in argv or "--print" in argv
    resumed = value_after(argv, "--resume")
    session = value_after(argv, "--session-id") or resumed
    stdin = None
    if headless and not sys.stdin.isatty():
        stdin = sys.stdin.read()
    log({"event": "boot", "program": program, "argv": argv, "cwd": os.getcwd(),
         "stdin": stdin, "mode": "headless" if headless else "interactive",
         "session": session, "environ": environ()})
    if headless:
        run_headless(program, session)
    else:
        interactive(program, argv, session, resumed)


def interactive(program, argv, session, resumed):
    """An interactive boot of any of the five: a failed resume, the TUI, or the line reader."""
    if resumed and os.environ.get("FAKE_HARNESS_RESUME_FAIL") == "1":
        log({"event": "resume_failed", "session": resumed})
        sys.stderr.write(f"No conversation found with session ID: {resumed}\n")
        sys.exit(1)
    elif os.environ.get("FAKE_HARNESS_TUI") == "1":
        booted(argv, session)
        run_tui(session)
    else:
        booted(argv, session)
        run_interactive(program, session)


def boot_entry(program, argv, mode, session):
    stdin = None
    if mode == "headless" and not sys.stdin.isatty():
        stdin = sys.stdin.read()
    log({"event": "boot", "program": program, "argv": argv, "cwd": os.getcwd(), "stdin": stdin,
         "mode": mode, "session": session, "environ": environ()})


def main_cursor_issue(argv, parsed):
    """`cursor-agent create-chat`: prints a fresh chat id."""
    chat = str(uuid.uuid4())
    boot_entry("cursor-agent", argv, "issue", chat)
    print(chat, flush=True)


def headless_failure(program):
    """FAKE_HARNESS_SLEEP_MS, then FAKE_HARNESS_EXIT when set: the exit code, or None to go on."""
    sleep_ms = int(os.environ.get("FAKE_HARNESS_SLEEP_MS", "0") or "0")
    if sleep_ms:
        time.sleep(sleep_ms / 1000)
    sys.stderr.write(f"fake {program}: working\n")
    return int(os.environ.get("FAKE_HARNESS_EXIT", "0") or "0")


def tokens_split():
    """FAKE_HARNESS_TOKENS=<n> as (input, output) with input + output = n, or None."""
    tokens = os.environ.get("FAKE_HARNESS_TOKENS")
    if not tokens:
        return None
    n = int(tokens)
    return n - n // 4, n // 4


def main_codex(argv, parsed):
    """codex: `exec [resume]` prints JSON lines; the TUI leaves a rollout file naming its id."""
    sub, flags, args = parsed["sub"], parsed["flags"], parsed["args"]
    if sub == ["exec", "resume"]:
        if len(args) < 2:
            fail_usage("codex", argv, "error: exec resume needs SESSION_ID and PROMPT here")
        session, mode = args[0], "headless"
    elif sub == ["exec"]:
        if "--json" not in flags:
            fail_usage("codex", argv, "fake codex: the-loop always asks for --json")
        session, mode = str(uuid.uuid4()), "headless"
    elif sub == ["resume"]:
        session, mode = (args[0] if args else None), "interactive"
    else:
        session, mode = str(uuid.uuid4()), "interactive"
    boot_entry("codex", argv, mode, session)
    if mode == "interactive":
        if sub != ["resume"]:
            write_rollout(session)
        return interactive("codex", argv, session, session if sub == ["resume"] else None)
    code = headless_failure("codex")
    if code:
        sys.exit(code)
    lines = [{"type": "thread.started", "thread_id": session}, {"type": "turn.started"},
             {"type": "item.completed", "item": {"id": "item_0", "type": "agent_message",
                                                 "text": "ok"}}]
    usage = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0}
    split = tokens_split()
    if split:
        usage = {"input_tokens": split[0], "cached_input_tokens": split[0] // 2,
                 "output_tokens": split[1]}
    lines.append({"type": "turn.completed", "usage": usage})
    print("\n".join(json.dumps(l) for l in lines), flush=True)


def write_rollout(session):
    """What the codex TUI leaves: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<id>.jsonl."""
    if os.environ.get("FAKE_HARNESS_NO_ID") == "1":
        return
    home = os.environ.get("CODEX_HOME") or os.path.join(os.environ.get("HOME", "/tmp"), ".codex")
    now = time.localtime()
    day = os.path.join(home, "sessions", time.strftime("%Y", now), time.strftime("%m", now),
                       time.strftime("%d", now))
    os.makedirs(day, exist_ok=True)
    name = f"rollout-{time.strftime('%Y-%m-%dT%H-%M-%S', now)}-{session}.jsonl"
    meta = {"timestamp": time.strftime("%Y-%m-%dT%H:%M:%S", now), "type": "session_meta",
            "payload": {"id": session, "cwd": os.getcwd(), "originator": "codex_cli_rs"}}
    with open(os.path.join(day, name), "w") as f:
        f.write(json.dumps(meta) + "\n")


def main_gemini(argv, parsed):
    """gemini: `-p` prints one JSON result (exit 53 at its turn limit); else the TUI."""
    flags, args = parsed["flags"], parsed["args"]
    prompt = fake_cli.first(flags, "--prompt", "-p")
    resumed = fake_cli.first(flags, "--resume", "-r")
    session = fake_cli.first(flags, "--session-id") or resumed
    if prompt is None:
        boot_entry("gemini", argv, "interactive", session)
        return interactive("gemini", argv, session, resumed)
    if fake_cli.first(flags, "--output-format", "-o") != "json":
        fail_usage("gemini", argv, "fake gemini: the-loop always asks for --output-format json")
    session = session or str(uuid.uuid4())
    boot_entry("gemini", argv, "headless", session)
    code = headless_failure("gemini")
    if code == 53:
        print(json.dumps({"session_id": session, "error": {
            "type": "FatalTurnLimitedError", "message": "Reached max session turns", "code": 53}}))
        sys.exit(53)
    if code:
        sys.exit(code)
    split = tokens_split() or (0, 0)
    result = {"session_id": session, "response": "ok", "stats": {"models": {
        "gemini-2.5-pro": {"api": {"totalRequests": 1, "totalErrors": 0},
                           "tokens": {"prompt": split[0], "candidates": split[1],
                                      "total": split[0] + split[1], "cached": 0,
                                      "thoughts": 0, "tool": 0}}}}}
    if os.environ.get("FAKE_HARNESS_NO_ID") == "1":
        del result["session_id"]
    print(json.dumps(result), flush=True)


def opencode_id():
    return "ses_" + uuid.uuid4().hex[:26]


def main_opencode(argv, parsed):
    """opencode: `run --format json` prints JSON events (each with sessionID); else the TUI."""
    sub, flags, args = parsed["sub"], parsed["flags"], parsed["args"]
    if sub != ["run"]:
        session = fake_cli.first(flags, "--session", "-s")
        boot_entry("opencode", argv, "interactive", session)
        return interactive("opencode", argv, session, session)
    if fake_cli.first(flags, "--format") != "json":
        fail_usage("opencode", argv, "fake opencode: the-loop always asks for --format json")
    session = fake_cli.first(flags, "--session", "-s") or opencode_id()
    now = int(time.time() * 1000)
    if "--command" in flags:
        # the session made up front (`--command true`): it starts, names itself, and ends
        boot_entry("opencode", argv, "issue", session)
        print(json.dumps({"type": "step_start", "timestamp": now, "sessionID": session,
                          "part": {"type": "step-start"}}), flush=True)
        return
    boot_entry("opencode", argv, "headless", session)
    code = headless_failure("opencode")
    if code:
        sys.exit(code)
    split = tokens_split() or (0, 0)
    finish = {"type": "step-finish", "reason": "stop",
              "tokens": {"input": split[0], "output": split[1], "reasoning": 0,
                         "cache": {"read": 0, "write": 0}}}
    cost = os.environ.get("FAKE_HARNESS_COST")
    finish["cost"] = float(cost) if cost else 0
    events = [{"type": "step_start", "part": {"type": "step-start"}},
              {"type": "text", "part": {"type": "text", "text": "ok"}},
              {"type": "step_finish", "part": finish}]
    sid = None if os.environ.get("FAKE_HARNESS_NO_ID") == "1" else session
    print("\n".join(json.dumps(dict(e, timestamp=now, **({"sessionID": sid} if sid else {})))
                    for e in events), flush=True)


def fail_usage(program, argv, message):
    log({"event": "rejected", "program": program, "argv": argv, "error": message})
    sys.stderr.write(message + "\n")
    sys.exit(2)


OTHERS = {"codex": main_codex, "gemini": main_gemini, "opencode": main_opencode}


def booted(argv, session):
    """An interactive boot: the question to ask, then the boot prompt's command (when it has one)."""
    ask_once(session)
    for a in argv:
        if ADVANCE.search(a):
            act_on(a, session)
            break


def usage_fields(program):
    """What the run reports it used, as Claude's result carries it (cursor-agent reports none).

    FAKE_HARNESS_COST=<usd> → total_cost_usd; FAKE_HARNESS_TOKENS=<n> → usage, n split over its
    four counts (input, output, cache write, cache read; they sum to n); FAKE_HARNESS_TURNS=<n>
    → num_turns. Each absent unless its variable is set.
    """
    if program != "claude":
        return {}
    fields = {}
    cost = os.environ.get("FAKE_HARNESS_COST")
    if cost:
        fields["total_cost_usd"] = float(cost)
    tokens = os.environ.get("FAKE_HARNESS_TOKENS")
    if tokens:
        n = int(tokens)
        q = n // 4
        fields["usage"] = {"input_tokens": q, "cache_creation_input_tokens": q,
                           "cache_read_input_tokens": q, "output_tokens": n - 3 * q,
                           "service_tier": "standard"}
    turns = os.environ.get("FAKE_HARNESS_TURNS")
    if turns:
        fields["num_turns"] = int(turns)
    return fields


# FAKE_HARNESS_CAPPED: the result subtype of a run its own cap stopped
CAPPED = {"turns": "error_max_turns", "budget": "error_max_budget_usd"}


def run_headless(program, session):
    sleep_ms = int(os.environ.get("FAKE_HARNESS_SLEEP_MS", "0") or "0")
    if sleep_ms:
        time.sleep(sleep_ms / 1000)
    code = int(os.environ.get("FAKE_HARNESS_EXIT", "0") or "0")
    sys.stderr.write(f"fake {program}: working\n")
    if code != 0:
        sys.stderr.write(f"fake {program}: failing with exit code {code}\n")
        sys.exit(code)
    capped = os.environ.get("FAKE_HARNESS_CAPPED")
    result = {"type": "result", "subtype": "success", "is_error": False, "result": "ok"}
    if capped:
        # as claude stopped by --max-turns / --max-budget-usd: an error result, then exit 1
        result = {"type": "result", "subtype": CAPPED[capped], "is_error": True}
    result.update(usage_fields(program))
    if os.environ.get("FAKE_HARNESS_NO_ID") != "1":
        result["session_id"] = session or str(uuid.uuid4())
    print(json.dumps(result), flush=True)
    if capped:
        sys.stderr.write(f"fake {program}: stopped by its {capped} cap\n")
        sys.exit(1)


def run_interactive(program, session):
    print(f"fake {program} ready (session {session})", flush=True)
    fd = sys.stdin.fileno()
    tty = os.isatty(fd)
    if tty:
        # bytes as they come, as a TUI harness reads them: a pasted prompt is one read (and one
        # log write), not a read per line; CR still arrives as LF (ICRNL), signals still work.
        # No echo by the terminal either: a TUI shows what it read itself (below), in one write,
        # where the terminal's echo would send it back a character at a time
        import termios
        attrs = termios.tcgetattr(fd)
        attrs[3] &= ~(termios.ICANON | termios.ECHO)
        attrs[6][termios.VMIN] = 1
        attrs[6][termios.VTIME] = 0
        termios.tcsetattr(fd, termios.TCSANOW, attrs)
    carry = b""
    act = os.environ.get("FAKE_HARNESS_ACT") == "1"
    prompt = ""  # what arrived since the input was last quiet (ACT mode)
    while True:
        if act and prompt:
            ready, _, _ = select.select([fd], [], [], ACT_QUIET_S)
            if not ready:
                act_on(prompt, session)
                prompt = ""
                continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            if carry:
                log_lines([carry], session)
            log({"event": "eof", "session": session})
            return
        if tty:
            shown = memoryview(chunk)
            while shown:
                shown = shown[os.write(sys.stdout.fileno(), shown):]
        if act:
            prompt += chunk.decode("utf-8", "replace")
        *lines, carry = (carry + chunk).split(b"\n")
        if lines:
            log_lines(lines, session)


def log_lines(lines, session):
    """One `input` entry per line, all with one time stamp and in one write."""
    pid, ts = os.getpid(), time.time()
    write_log({"event": "input", "line": raw.decode("utf-8", "replace").rstrip("\r"),
               "session": session, "pid": pid, "ts": ts} for raw in lines)


PASTE_START = b"\x1b[200~"
PASTE_END = b"\x1b[201~"


def run_tui(session):
    """A TUI in raw mode with bracketed paste on (`ESC[?2004h`), reading its tty byte by byte.

    Between `ESC[200~` and `ESC[201~` bytes are pasted text; outside a paste they are keys:
    CR or LF submits what was pasted and typed since the last submission, logged as
      {"event": "submit", "pastes": [text of each paste], "typed": keys outside a paste,
       "utf8": whether every byte decoded, "session", "pid", "ts"}
    and Ctrl-C (`\\x03`) ends the TUI, logged as {"event": "interrupted"}, as a harness's does.
    Once raw mode and bracketed paste are on it logs {"event": "tui_ready"} and prints
    "fake tui ready".
    """
    import tty
    fd = sys.stdin.fileno()
    tty.setraw(fd)
    os.write(sys.stdout.fileno(), b"\x1b[?2004h")
    log({"event": "tui_ready", "session": session})
    os.write(sys.stdout.fileno(), b"fake tui ready\r\n")
    pastes, typed, paste, esc = [], b"", None, b""

    def text(raw):
        return raw.decode("utf-8", "replace")

    def data(raw):
        nonlocal typed, paste
        if paste is not None:
            paste += raw
            return
        for b in raw:
            if b in (0x0D, 0x0A):
                submit()
            elif b == 0x03:
                log({"event": "interrupted", "session": session})
                sys.exit(130)
            else:
                typed += bytes([b])

    def submit():
        nonlocal pastes, typed
        raws = pastes + [typed]
        utf8 = True
        for raw in raws:
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError:
                utf8 = False
        log({"event": "submit", "pastes": [text(p) for p in pastes], "typed": text(typed),
             "utf8": utf8, "session": session})
        act_on("".join(text(raw) for raw in raws), session)
        pastes, typed = [], b""

    while True:
        try:
            byte = os.read(fd, 1)
        except OSError:
            byte = b""
        if not byte:
            log({"event": "eof", "session": session})
            return
        if esc or byte == b"\x1b":
            esc += byte
            if esc == PASTE_START and paste is None:
                paste, esc = b"", b""
            elif esc == PASTE_END and paste is not None:
                pastes.append(paste)
                paste, esc = None, b""
            elif not (PASTE_START.startswith(esc) or PASTE_END.startswith(esc)):
                pending, esc = esc, b""
                data(pending)
            continue
        data(byte)
