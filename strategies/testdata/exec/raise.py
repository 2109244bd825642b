# A Python planner that fails: reads its input, then raises with the
# message given after --why.
import sys

sys.stdin.read()


def plan(why):
    raise ValueError(why)


plan(sys.argv[sys.argv.index("--why") + 1])
