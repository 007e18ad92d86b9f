#!/bin/sh
# Dies of a signal.
kill -9 $$
