#!/usr/bin/env python3
"""A command hook in Python (standard library only): an audit trail and a stop policy.

Every call appends one JSON line to the file named by $AUDIT_LOG (the declaration must pass
the variable through with `env: [AUDIT_LOG]`; a command hook sees nothing else of the-loop's
environment). A `stop` control command (`input_received`, kind `command`) is refused unless its
actor is one of the logins given with --stoppers; everything else passes.

    hooks:
      - name: audit
        command: [python3, ./hooks/audit_command.py, --stoppers, "alice,bob"]
        env: [AUDIT_LOG]

Protocol: one JSON object on stdin, {"point": ..., "context": {...}}; exit 0 with an empty
stdout passes, exit 2 refuses with stderr as the reason, any other exit is the hook's failure.
"""
import argparse
import json
import os
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stoppers", default="", help="comma-separated logins allowed to stop")
    args = parser.parse_args()
    stoppers = {s.strip().lower() for s in args.stoppers.split(",") if s.strip()}

    log = os.environ.get("AUDIT_LOG")
    if not log:
        print("AUDIT_LOG is not set; pass it with env: [AUDIT_LOG] in the declaration",
              file=sys.stderr)
        return 1

    call = json.load(sys.stdin)
    point, ctx = call["point"], call["context"]
    work_item = ctx.get("work_item") or {}
    entry = {
        "ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "point": point,
        "work_item": work_item.get("ref", ""),
        "actor": ctx.get("actor", ""),
        "kind": ctx.get("kind", ""),
        "command": ctx.get("command", ""),
    }
    with open(log, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")

    actor = str(ctx.get("actor", ""))
    if (point == "input_received" and ctx.get("kind") == "command"
            and ctx.get("command") == "stop" and actor.lower() not in stoppers):
        print(f"@{actor} may not stop the loop; ask one of: {', '.join(sorted(stoppers)) or 'nobody'}",
              file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
