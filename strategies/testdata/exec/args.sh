#!/bin/sh
# Takes arguments: a label that must arrive as one word, and a gap in
# bytes left between buffers laid back to back.
if [ "$1" != "two words" ]; then echo "first argument: got '$1', want 'two words'" >&2; exit 1; fi
exec awk -F, -v gap="$2" '
NR == 1 { next }
{ print $1 "," off + 0; off += $4 + gap }'
