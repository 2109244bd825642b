#!/usr/bin/env bash
# CI's Slurm test: on this machine, installs Slurm and MUNGE from Debian if
# missing, starts munged, slurmctld and slurmd on localhost with a minimal
# configuration in a temporary folder, submits scripts/configs/ci-small.toml
# as a 4-task array with its merge through submit.sh, and checks that
#   - every task and the merge succeed, though a cell of the config times
#     out;
#   - the merged folder equals an unsharded run (samecells: same cells in
#     the same order, same statuses, footprints and bounds);
#   - a task resubmitted alone (submit.sh CONFIG 4 2) resumes its shard,
#     running nothing again, and the merge runs again.
# The daemons are stopped on exit. It needs root (it installs packages and
# starts daemons) and skips with a message without it; CI runs it as root
# on a throwaway machine. Exit codes: 0 passed or skipped, 1 failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)

if [ "$(id -u)" != 0 ]; then
  echo "slurm ci-test: skipped: needs root to install Slurm and start its daemons"
  exit 0
fi
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  if ! command -v apt-get >/dev/null; then
    echo "slurm ci-test: skipped: Slurm is not installed and there is no apt-get to install it"
    exit 0
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi

tmp=$(mktemp -d /tmp/membench-slurm.XXXXXX)
started_munged=
cleanup() {
  local rc=$?
  if [ -f "$tmp/conf/slurm.conf" ]; then
    SLURM_CONF=$tmp/conf/slurm.conf scancel --quiet --user=root 2>/dev/null || true
  fi
  local pids=()
  for f in "$tmp/run/slurmd.pid" "$tmp/run/slurmctld.pid" ${started_munged:+"$tmp/run/munged.pid"}; do
    [ -f "$f" ] && pids+=("$(cat "$f")")
  done
  [ ${#pids[@]} = 0 ] || kill "${pids[@]}" 2>/dev/null || true
  # Wait for them to go before their folder does.
  for _ in $(seq 40); do
    kill -0 "${pids[@]}" 2>/dev/null || break
    sleep 0.25
  done
  if [ $rc != 0 ]; then
    echo "slurm ci-test: FAILED; logs:"
    tail -n 30 "$tmp"/log/* "$tmp"/out/logs/* 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp"/{conf,run,log,state,spool,munge} "$tmp/out"

# MUNGE: use a running munged, else start one on a key of our own.
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
  chmod 700 "$tmp/munge"
  chmod 400 "$tmp/munge/munge.key"
  mkdir -p /run/munge
  munged --force --key-file="$tmp/munge/munge.key" --pid-file="$tmp/run/munged.pid" \
    --socket=/run/munge/munge.socket.2 --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge/seed"
  started_munged=1
  munge -n | unmunge >/dev/null
fi

host=$(hostname -s)
cpus=$(nproc)
export SLURM_CONF=$tmp/conf/slurm.conf
# No cgroups, accounting or MPI: the machine may be a container.
cat >"$SLURM_CONF" <<CONF
ClusterName=membench-ci
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do
  sinfo -h -o %t 2>/dev/null | grep -qx idle && break
  sleep 0.5
done
sinfo -h -o %t | grep -qx idle || { echo "slurm ci-test: the node did not come up"; sinfo; exit 1; }

# wait_job ID [STATE EXIT]: waits until job ID (all its array tasks) has
# left the queue, then checks that every part ended in STATE with exit code
# EXIT (default COMPLETED 0:0).
wait_job() {
  local want="${2:-COMPLETED} ${3:-0:0}"
  for _ in $(seq 240); do
    [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && break
    sleep 0.5
  done
  local states
  states=$(scontrol -o show job "$1" | grep -o 'JobState=[A-Z_]* .*ExitCode=[0-9:]*' | sed 's/JobState=\([A-Z_]*\).*ExitCode=\([0-9:]*\)/\1 \2/' | sort | uniq -c)
  echo "job $1: $states"
  if echo "$states" | grep -qv " $want\$"; then
    echo "slurm ci-test: job $1 did not end $want"
    return 1
  fi
}

config=scripts/configs/ci-small.toml
export MEMBENCH_OUT=$tmp/out
# submit CONFIG N [TASKS]: submits through submit.sh and sets array and merge
# to the job ids it prints.
submit() {
  local said
  said=$(scripts/slurm/submit.sh "$@")
  echo "$said"
  read -r array merge <<<"$(echo "$said" | sed -n 's/^array \([0-9]*\) .*, merge \([0-9]*\);.*/\1 \2/p')"
  [ -n "$merge" ] || { echo "slurm ci-test: submit.sh printed no job ids"; return 1; }
}
submit "$config" 4
wait_job "$array"
wait_job "$merge"
# The config's timeout is in the merge: a failed cell held nothing back.
grep -q '"status":"timeout"' "$tmp/out/ci-small/results.jsonl" ||
  { echo "slurm ci-test: the merged sweep lacks the cell that times out"; exit 1; }

# The same sweep unsharded, by the binary submit.sh built.
"$tmp/out/bin/membench" run --config "$config" --out "$tmp/unsharded" --jobs 1 --allow-failed-cells >/dev/null 2>"$tmp/log/unsharded.err"
go run ./scripts/slurm/samecells "$tmp/unsharded" "$tmp/out/ci-small"

# Resubmitting one task resumes its shard: nothing runs again.
submit "$config" 4 2
wait_job "$array"
wait_job "$merge"
grep -q 'ci-small-shard-2: 0 cells run, [1-9][0-9]* already done' "$tmp/out/logs/ci-small-${array}_2.log" ||
  { echo "slurm ci-test: task 2 did not resume its shard:"; cat "$tmp/out/logs/ci-small-${array}_2.log"; exit 1; }
go run ./scripts/slurm/samecells "$tmp/unsharded" "$tmp/out/ci-small"

# A task submitted alone without SHARDS cannot know the shard count: it
# fails with exit 2 instead of computing shard 2/1.
alone=$(CONFIG=$config MEMBENCH=$tmp/out/bin/membench OUTDIR=$tmp/out/alone \
  sbatch --parsable --array=2 --chdir="$repo" --output="$tmp/out/logs/alone-%A_%a.log" scripts/slurm/membench-array.sbatch)
wait_job "$alone" FAILED 2:0
grep -q 'set SHARDS: array 2-2 is not a whole 0-(N-1)' "$tmp/out/logs/alone-${alone}_2.log" ||
  { echo "slurm ci-test: a task alone did not ask for SHARDS:"; cat "$tmp/out/logs/alone-${alone}_2.log"; exit 1; }
echo "slurm ci-test: passed"
