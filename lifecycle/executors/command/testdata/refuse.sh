#!/bin/sh
# Refuses (exit 2) with a reason on stderr, padded to check it is trimmed.
cat >/dev/null
echo "  not on a Friday  " >&2
exit 2
