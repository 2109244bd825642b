#!/bin/sh
# Answers like MiniMalloc's solver: the input CSV with an offset column
# added (no alignment handling), buffers stacked back to back.
exec awk -F, 'NR == 1 { print $0 ",offset"; next } { print $0 "," off + 0; off += $4 }'
