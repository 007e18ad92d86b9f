#!/bin/sh
# Refuses with its arguments, one per line, so the test sees exactly what arrived.
for a in "$@"; do printf "%s\n" "$a"; done >&2
exit 2
