#!/bin/sh
# Prints a well-formed line, then garbage.
cat >/dev/null
echo "0,0"
echo "1,lots"
