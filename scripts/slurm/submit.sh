#!/usr/bin/env bash
# Submits a sweep to Slurm in one command: an array job, one shard per task,
# and a merge that runs when every task has succeeded.
#
#   scripts/slurm/submit.sh CONFIG [N [TASKS]]
#
#   CONFIG  a sweep config (TOML), e.g. scripts/configs/overnight-scaling.toml
#   N       the number of shards (default 16): the array is 0-(N-1)
#   TASKS   resubmit only these array indices (Slurm syntax: "2" or "1,3"),
#           of the same N; each resumes its shard, then the merge runs again
#
# Run it from anywhere on a login node whose file system the compute nodes
# share. It builds the binary once (go build, into MEMBENCH_OUT/bin/membench)
# unless MEMBENCH names one, and prints the two job ids. Shards go to
# MEMBENCH_OUT/NAME-shard-I, the merge to MEMBENCH_OUT/NAME, logs to
# MEMBENCH_OUT/logs/; MEMBENCH_OUT defaults to out/ in the repository and
# NAME is the config's base name. sbatch's own variables (SBATCH_PARTITION,
# SBATCH_TIMELIMIT, SBATCH_MEM_PER_NODE, SBATCH_ACCOUNT, ...) reach both jobs.
#
# Exit codes, here and in the jobs (membench's own):
#   0  submitted; a task whose sweep ran to the end exits 0 even if cells
#      failed (timeouts, errors, invalid plans are results: see the log and
#      results.jsonl), so the merge runs
#   1  work membench could not do (a folder it could not write, a crash):
#      the task fails and the merge (afterok) does not run; fix it and
#      resubmit the task with TASKS, which resumes its shard
#   2  bad usage or input (a bad config, a shard folder of another config):
#      the task fails at once
set -euo pipefail

usage() { echo "usage: $0 CONFIG [N [TASKS]]" >&2; exit 2; }
if [ $# -lt 1 ] || [ $# -gt 3 ]; then usage; fi
config=$1
shards=${2:-16}
[[ $shards =~ ^[1-9][0-9]*$ ]] || { echo "$0: N must be a positive number, not \"$shards\"" >&2; exit 2; }
tasks=${3:-0-$((shards - 1))}
[ -f "$config" ] || { echo "$0: $config: no such config file" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
config=$(cd "$(dirname "$config")" && pwd)/$(basename "$config")
name=$(basename "$config" .toml)
out=${MEMBENCH_OUT:-$repo/out}
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)

if [ -z "${MEMBENCH:-}" ]; then
  MEMBENCH=$out/bin/membench
  (cd "$repo" && go build -o "$MEMBENCH" ./cmd/membench)
fi
[ -x "$MEMBENCH" ] || { echo "$0: $MEMBENCH is not an executable" >&2; exit 2; }

export CONFIG=$config MEMBENCH SHARDS=$shards OUTDIR=$out
array=$(sbatch --parsable --chdir="$repo" --array="$tasks" --job-name="membench-$name" \
  --output="$out/logs/$name-%A_%a.log" --export=ALL "$here/membench-array.sbatch")
array=${array%%;*}
merge=$(sbatch --parsable --chdir="$repo" --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  --job-name="membench-$name-merge" --output="$out/logs/$name-merge-%j.log" --export=ALL \
  "$here/membench-merge.sbatch")
merge=${merge%%;*}
echo "array $array (tasks $tasks of $shards), merge $merge; logs in $out/logs/"
echo "shards in $out/$name-shard-*, merged into $out/$name"
