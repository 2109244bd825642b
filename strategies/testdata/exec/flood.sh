#!/bin/sh
# Prints without end.
exec yes 0,0
