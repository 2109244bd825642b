#!/usr/bin/env bash
# Regenerates the paper figures in one command:
#   scripts/paper-figures.sh [tflite|cross-runtime|all] [OUT_DIR]
# tflite: the figure of TFLite's memory-planning paper (footprint per model
#   per strategy on the model zoo), from scripts/configs/paper-tflite.toml:
#   OUT_DIR/paper-tflite/plots/footprint-zoo.png.
# cross-runtime: the field's production planners side by side, from
#   scripts/configs/cross-runtime.toml (long: every planner on every
#   workload): OUT_DIR/cross-runtime/plots/runtime-<group>.png, the best
#   footprint / LB_load of each runtime's planners per workload, one figure
#   per workload group (zoo, synthetic, tflite, recorded, minimalloc), and
#   runtime-<group>.md, which names the planner behind each bar.
# all (the default) runs both. OUT_DIR (default out) gets one folder per
# config, each with results, summary.md and plots/. CONFIGS=DIR reads the
# configs of the same names from DIR instead (to try the script on small
# ones).
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-all}
out=${2:-out}
configs=${CONFIGS:-scripts/configs}
case $which in
tflite) names=(paper-tflite) ;;
cross-runtime) names=(cross-runtime) ;;
all) names=(paper-tflite cross-runtime) ;;
*)
	echo "usage: scripts/paper-figures.sh [tflite|cross-runtime|all] [OUT_DIR]" >&2
	exit 2
	;;
esac
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/membench" ./cmd/membench
for name in "${names[@]}"; do
	"$bin/membench" run --config "$configs/$name.toml" --out "$out/$name" --force --jobs 1
done
for name in "${names[@]}"; do
	case $name in
	paper-tflite) echo "TFLite paper figure: $out/$name/plots/footprint-zoo.png; table: $out/$name/summary.md" ;;
	cross-runtime)
		shopt -s nullglob
		figs=("$out/$name"/plots/runtime-*.png)
		echo "cross-runtime figures: ${figs[*]:-none (the sweep has strategies of fewer than 2 runtimes)}; each planner behind a bar: the .md beside it; table: $out/$name/summary.md"
		;;
	esac
done
