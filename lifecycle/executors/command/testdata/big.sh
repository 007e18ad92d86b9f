#!/bin/sh
# Prints $1 bytes of x on stdout and on stderr, then exits 0.
head -c "$1" /dev/zero | tr "\000" x
head -c "$1" /dev/zero | tr "\000" y >&2
