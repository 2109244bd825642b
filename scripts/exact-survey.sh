#!/usr/bin/env bash
# Surveys `exact` on the known-optimum generators (issue 20's target):
# every family (tiling, pinwheel, tiling-contention, pinwheel-contention)
# x size law x seeds 1-5 at n = 100 and 300, and seed 1 at n = 1,000, one
# `membench plan` process per instance, one after the other:
#   scripts/exact-survey.sh [SPEC] [MEMBENCH]
# SPEC is the strategy (default `exact`, its default 10 s budget);
# MEMBENCH a membench binary to run (default: built from this tree into a
# temporary folder). Prints a tab-separated row per instance: family, n,
# sizes, seed, the plan's seconds (as plan reports them), the process's
# CPU seconds (user+sys, GNU time), footprint, planted optimum (the
# families' capacity, 1 MiB by default: every one tiles tasks x capacity
# with no slack), bound, proved (optimal), nodes; then a summary line per
# family and n. Timings depend on the machine and its load: report them
# with the load (uptime).
set -euo pipefail
cd "$(dirname "$0")/.."
spec=${1:-exact}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mb=${2:-}
if [ -z "$mb" ]; then
	go build -o "$tmp/membench" ./cmd/membench
	mb=$tmp/membench
fi
planted=1048576
printf 'family\tn\tsizes\tseed\tplan_s\tcpu_s\tfootprint\tplanted\tbound\tproved\tnodes\n'
row() {
	local f=$1 n=$2 d=$3 seed=$4 rc=0
	local w="synthetic/$f?n=$n&sizes=$d&seed=$seed"
	/usr/bin/time -f '%U %S' -o "$tmp/time" "$mb" plan --strategy "$spec" --format json "$w" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [ "$rc" -ne 0 ]; then
		printf '%s\t%s\t%s\t%s\tfailed (exit %s): %s\n' "$f" "$n" "$d" "$seed" "$rc" "$(head -c 100 "$tmp/err" | tr '\n\t' '  ')"
		return
	fi
	local cpu
	cpu=$(awk '{printf "%.2f", $1 + $2}' "$tmp/time")
	jq -r --arg f "$f" --arg n "$n" --arg d "$d" --arg s "$seed" --arg cpu "$cpu" --arg pl "$planted" \
		'[$f, $n, $d, $s, (.seconds * 100 | round / 100), $cpu, .footprint, $pl, (.bound // ""), (.optimal // false), (.nodes // 0)] | @tsv' "$tmp/out"
}
for f in tiling pinwheel tiling-contention pinwheel-contention; do
	for n in 100 300 1000; do
		seeds="1 2 3 4 5"
		[ "$n" = 1000 ] && seeds=1
		for d in uniform log-uniform zipf bimodal dominant; do
			for seed in $seeds; do row "$f" "$n" "$d" "$seed"; done
		done
	done
done | tee "$tmp/rows"
# Summary: per family and n, instances at the planted optimum, proved,
# proved in under 1 s of plan time, and the slowest plan.
awk -F'\t' -v pl="$planted" '
	NF >= 11 { k = $1 " n=" $2; if (!(k in tot)) order[++m] = k; tot[k]++
		if ($7 == pl) at[k]++; if ($10 == "true") pr[k]++
		if ($10 == "true" && $5 < 1) fast[k]++; if ($5 > slow[k]) slow[k] = $5 }
	END { for (i = 1; i <= m; i++) { k = order[i]
		printf "# %s: %d instances, %d at the planted optimum, %d proved, %d proved in < 1 s, slowest %.2f s\n", \
			k, tot[k], at[k], pr[k], fast[k], slow[k] } }' "$tmp/rows"
