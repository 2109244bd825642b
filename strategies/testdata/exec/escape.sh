#!/bin/sh
# Starts processes that leave its process group (setsid, and a double
# fork under setsid), marked with $1 in their environment, then plans
# back to back; with $2 = hang it never answers instead.
MEMBENCH_ESCAPE_TEST="$1" setsid sleep 1000 &
(MEMBENCH_ESCAPE_TEST="$1" setsid sh -c 'sleep 1000 & sleep 1000' &)
if [ "$2" = hang ]; then sleep 1000; fi
exec "$(dirname "$0")/backtoback.sh"
