#!/bin/sh
# A setsid grandchild with a fresh environment (no marker: found only by its parent link), pid
# in $1; the hook outstays the timeout.
env -i setsid sleep 300 </dev/null >/dev/null 2>&1 &
echo $! > "$1"
exec sleep 300
