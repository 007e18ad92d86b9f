#!/bin/sh
# Starts a grandchild in a session of its own (out of the hook's process group), records its pid
# in $1, and outstays the timeout.
setsid sleep 300 &
echo $! > "$1"
exec sleep 300
