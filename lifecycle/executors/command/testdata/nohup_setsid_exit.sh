#!/bin/sh
# nohup + setsid: the sleeper (pid in $1) ignores SIGHUP and has a session of its own; exits 0
# once it has (else the group kill would still reach it).
nohup setsid sleep 300 </dev/null >/dev/null 2>&1 &
pid=$!
while [ "$(ps -o sid= -p "$pid" | tr -d ' ')" != "$pid" ]; do sleep 0.01; done
echo "$pid" > "$1"
echo '{}'
