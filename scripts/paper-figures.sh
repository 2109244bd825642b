#!/usr/bin/env bash
# Regenerates the figures of TFLite's memory-planning paper (footprint per
# model per strategy on the model zoo) in one command:
#   scripts/paper-figures.sh [OUT_DIR]
# Writes OUT_DIR (default out/paper-tflite) with results, summary.md and
# plots/footprint-zoo.png, the paper's bar chart.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/paper-tflite}
go run ./cmd/membench run --config scripts/configs/paper-tflite.toml --out "$out" --force --jobs 1
echo "figure: $out/plots/footprint-zoo.png; table: $out/summary.md"
