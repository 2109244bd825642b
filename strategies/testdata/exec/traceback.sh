#!/bin/sh
# Fails as a Python planner does: a traceback on stderr, the exception last.
cat >/dev/null
cat >&2 <<'TB'
Traceback (most recent call last):
  File "planner.py", line 9, in <module>
    plan()
ValueError: no room for buffer 3
TB
exit 1
