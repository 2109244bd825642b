#!/bin/sh
# Echoes its capacity and input to stderr and fails.
echo "capacity ${MEMBENCH_CAPACITY:-none}" >&2
cat >&2
exit 3
