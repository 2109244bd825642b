#!/usr/bin/env bash
# Measures issue 20's targets on the field's instance sets and the
# known-optimum generators (README "The field's instance sets"), one
# `membench plan` process per cell, and prints Markdown tables:
#   scripts/field-targets.sh [exact|y1|idealloc|all] [TIMEOUT]
# exact: `exact` on MiniMalloc's small set and on every tiling/pinwheel
#   family and size law at n = 100, 300 and 1,000: plan time, footprint /
#   LB_load, proved optimal or not.
# y1: every registered planner on idealloc/y-1 (62,185 buffers): the
#   plan's time, the process's wall time and peak memory (/usr/bin/time -v),
#   footprint / LB_load.
# idealloc: `exact?timeout=60s` on all five idealloc instances.
# TIMEOUT (default 10m) caps each cell (plan --timeout); a planner that
# runs past it is reported as timed out. Needs jq and GNU time; builds
# membench into a temporary folder first. Timings depend on the machine
# and its load: report them with the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-all}
limit=${2:-10m}
case $which in exact | y1 | idealloc | all) ;; *)
	echo "usage: scripts/field-targets.sh [exact|y1|idealloc|all] [TIMEOUT]" >&2
	exit 2
	;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/membench" ./cmd/membench
mb=$tmp/membench

# cell STRATEGY WORKLOAD: one Markdown row.
cell() {
	local s=$1 w=$2 rc=0
	/usr/bin/time -v -o "$tmp/time" "$mb" plan --strategy "$s" --timeout "$limit" --format json "$w" >"$tmp/out" 2>"$tmp/err" || rc=$?
	local wall rss
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$tmp/time")
	rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$tmp/time")
	if [ "$rc" -ne 0 ]; then
		echo "| $w | $s | failed (exit $rc): $(head -c 120 "$tmp/err" | tr '\n|' ' /') | | | $wall | $rss |"
		return
	fi
	jq -r --arg w "$w" --arg wall "$wall" --arg rss "$rss" \
		'"| \($w) | \(.strategy) | \(.seconds * 1000 | round / 1000) s | \(.footprint / .lower_bound * 10000 | round / 10000) | \(if has("bound") | not then "" elif .optimal then "optimal" else "not proved" end) | \($wall) | \($rss) |"' "$tmp/out"
}

header() {
	echo
	echo "| workload | strategy | plan time | footprint / LB_load | exact | process wall | peak RSS MiB |"
	echo "|---|---|---|---|---|---|---|"
}

if [ "$which" = exact ] || [ "$which" = all ]; then
	header
	for w in a b c d e f g; do cell 'exact?timeout=60s' "minimalloc-small/$w"; done
	for f in tiling pinwheel tiling-contention pinwheel-contention; do
		for n in 100 300 1000; do
			for d in uniform log-uniform zipf bimodal dominant; do
				cell 'exact?timeout=60s' "synthetic/$f?n=$n&sizes=$d"
			done
		done
	done
fi
if [ "$which" = y1 ] || [ "$which" = all ]; then
	header
	"$mb" list strategies | awk '/^  [a-z]/ && $1 != "exec:PATH" {print $1}' | while read -r s; do
		[ "$s" = exact ] && s='exact?timeout=60s'
		cell "$s" idealloc/y-1
	done
fi
if [ "$which" = idealloc ] || [ "$which" = all ]; then
	header
	for w in g-1 s-1 y-1 resnet50 pangu-2-6b; do cell 'exact?timeout=60s' "idealloc/$w"; done
fi
