#!/bin/sh
# A valid external planner: reads MiniMalloc CSV (id,lower,upper,size
# [,alignment]) and lays the buffers back to back in input order, each at
# the next multiple of its alignment. Prints an id,offset header and lines.
exec awk -F, '
NR == 1 { print "id,offset"; next }
{
	a = (NF >= 5 && $5 > 1) ? $5 : 1
	off = int((off + a - 1) / a) * a
	print $1 "," off
	off += $4
}'
