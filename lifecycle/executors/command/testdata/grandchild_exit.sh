#!/bin/sh
# Exits 0 at once, leaving a grandchild (pid in $1) that holds stdout open.
sleep 30 &
echo $! > "$1"
echo "{}"
