#!/usr/bin/env bash
# Measures issue 20's "forms cost nothing when absent" in instructions,
# which the machine's load does not change: each planner of
# BenchmarkFormsAbsent plans the same problem (no forms) through the
# registry (size-type and forms checks, forms dispatch) and on its own
# (Unwrap), under valgrind's cachegrind with the collector and async
# preemption off, N and 2N times; the per-plan count is the difference
# over N, which cancels the process's start. Prints the ratio
# registry/planner per planner.
#   scripts/forms-cost.sh [N] [PLANNER...]
# Needs valgrind. About 30 minutes on 2 cores at N=16, the default; a
# smaller N leaves the runtime's own noise (about 0.1M instructions) in
# the ratio of the fastest planners.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-16}
shift || true
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/strategies.test" ./strategies
planners=("$@")
if [ ${#planners[@]} -eq 0 ]; then
	mapfile -t planners < <(sed -n '/^var formsAbsentPlanners/,/^}/p' strategies/bench_forms_test.go | grep -o '"[a-z-]*"' | tr -d '"')
fi
count() { # planner how runs
	(cd strategies && GOGC=off GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 \
		valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
		"$tmp/strategies.test" -test.run '^$' -test.bench "FormsAbsent\$/$1/$2\$" -test.benchtime "$3x" 2>&1 |
		awk '/I *refs:/ { gsub(",", "", $NF); print $NF }')
}
printf '| planner | registry (Ir per plan) | planner (Ir per plan) | registry/planner |\n|---|---:|---:|---:|\n'
for p in "${planners[@]}"; do
	r=$(( ($(count "$p" registry $((2 * n))) - $(count "$p" registry "$n")) / n ))
	o=$(( ($(count "$p" planner $((2 * n))) - $(count "$p" planner "$n")) / n ))
	awk -v p="$p" -v r="$r" -v o="$o" 'BEGIN { printf "| %s | %d | %d | %.4f |\n", p, r, o, r / o }'
done
