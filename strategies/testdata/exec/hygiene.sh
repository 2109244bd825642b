#!/bin/sh
# Checks what a planner inherits from a sweep worker: no worker marker in
# its environment, no record pipe on fd 3. Then lays buffers back to back.
if [ -n "$MEMBENCH_WORKER" ]; then echo "MEMBENCH_WORKER is set" >&2; exit 1; fi
if { true >&3; } 2>/dev/null; then echo "fd 3 is open" >&2; exit 1; fi
exec "$(dirname "$0")/backtoback.sh"
