#!/bin/sh
# Fails: exit 1 with a message on stderr.
echo "boom: the database is gone" >&2
exit 1
