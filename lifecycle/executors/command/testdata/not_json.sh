#!/bin/sh
# Answers something that is not JSON.
echo "all good!"
