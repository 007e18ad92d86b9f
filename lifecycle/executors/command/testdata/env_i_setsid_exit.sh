#!/bin/sh
# The documented limit: a setsid sleeper (pid in $1) with a FRESH environment (env -i), left
# behind when the hook exits, is reparented to init and carries no marker: it is not found.
env -i setsid sleep 300 </dev/null >/dev/null 2>&1 &
pid=$!
# exit only once it has a session of its own (else the group kill would still reach it)
while [ "$(ps -o sid= -p "$pid" | tr -d ' ')" != "$pid" ]; do sleep 0.01; done
echo "$pid" > "$1"
echo '{}'
