#!/bin/sh
# Starts a grandchild that inherits stdout, records its pid in $1, and waits for it.
sleep 30 &
echo $! > "$1"
wait
