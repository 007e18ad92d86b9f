#!/bin/sh
# Refuses (exit 2) without saying why.
exit 2
