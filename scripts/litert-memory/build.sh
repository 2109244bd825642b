#!/usr/bin/env bash
# Builds litert-memory: the driver (driver.cc) linked against LiteRT's own,
# unmodified GPU memory manager, taken from a LiteRT git checkout or bare
# mirror at one revision. LiteRT's sources are extracted into the build
# folder, never committed here.
#
#   scripts/litert-memory/build.sh LITERT_GIT_DIR [REV] [BUILD_DIR]
#
# LITERT_GIT_DIR: a LiteRT clone (its .git, or a bare repository).
# REV: default f67457790c9c2ab67347d6fe53270e8d3df20868, the revision
# membench's ports follow. BUILD_DIR: default /tmp/litert-memory.
# Needs g++ (C++17), abseil (Debian: libabsl-dev) and FP16's header
# (Debian: libfp16-dev; LiteRT's types.h includes fp16.h).
set -euo pipefail
src=${1:?usage: build.sh LITERT_GIT_DIR [REV] [BUILD_DIR]}
rev=${2:-f67457790c9c2ab67347d6fe53270e8d3df20868}
out=${3:-/tmp/litert-memory}
here=$(cd "$(dirname "$0")" && pwd)
if [ -d "$src/.git" ]; then src=$src/.git; fi

common=tflite/delegates/gpu/common
mm=$common/memory_management
headers="$common/memory_management.h $common/shape.h $common/status.h
  $common/types.h $common/util.h $common/google/status_macros.h
  $mm/equality_assignment.h $mm/greedy_by_breadth_assignment.h
  $mm/greedy_by_size_assignment.h $mm/greedy_in_order_assignment.h
  $mm/internal.h $mm/min_cost_flow_assignment.h $mm/naive_assignment.h
  $mm/types.h"
sources="$common/memory_management.cc $common/shape.cc
  $mm/greedy_by_breadth_assignment.cc $mm/greedy_by_size_assignment.cc
  $mm/internal.cc $mm/min_cost_flow_assignment.cc $mm/types.cc"

rm -rf "$out/src"
for f in $headers $sources; do
  mkdir -p "$out/src/$(dirname "$f")"
  git --git-dir="$src" show "$rev:$f" >"$out/src/$f"
done
echo "$rev" >"$out/src/REVISION"

objs=
for f in $sources "$here/driver.cc"; do
  # Warnings are ours to fix in the driver only; LiteRT's code is as it is.
  case $f in /*) in=$f warn=-Wall ;; *) in=$out/src/$f warn=-w ;; esac
  o=$out/obj/$(basename "$f" .cc).o
  mkdir -p "$out/obj"
  g++ -std=c++17 -O2 $warn -isystem "$out/src" -DLITERT_REVISION="\"$rev\"" -c "$in" -o "$o"
  objs="$objs $o"
done
# shellcheck disable=SC2086
g++ -o "$out/litert-memory" $objs \
  -labsl_hash -labsl_city -labsl_low_level_hash -labsl_raw_hash_set \
  -labsl_status -labsl_cord -labsl_cordz_info -labsl_cord_internal \
  -labsl_cordz_functions -labsl_cordz_handle -labsl_exponential_biased \
  -labsl_synchronization -labsl_graphcycles_internal -labsl_stacktrace \
  -labsl_symbolize -labsl_debugging_internal -labsl_demangle_internal \
  -labsl_malloc_internal -labsl_time -labsl_civil_time -labsl_time_zone \
  -labsl_strings -labsl_strings_internal -labsl_str_format_internal \
  -labsl_int128 -labsl_throw_delegate -labsl_raw_logging_internal \
  -labsl_spinlock_wait -labsl_base -labsl_log_severity -labsl_bad_optional_access
echo "$out/litert-memory"
