#!/bin/sh
# Exits 0 at once, leaving a background process (pid in $1) that holds no pipe.
sleep 30 >/dev/null 2>&1 </dev/null &
echo $! > "$1"
