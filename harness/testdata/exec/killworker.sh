#!/bin/sh
# Starts two processes marked with $1 in their environment, one in the
# planner's process group and one that left it (setsid), then kills its
# parent, the sweep worker, as a user or the kernel's OOM killer would.
MEMBENCH_KILLWORKER_TEST="$1" sleep 1000 &
MEMBENCH_KILLWORKER_TEST="$1" setsid sleep 1000 &
kill -9 $PPID
sleep 1000
