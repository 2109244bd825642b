#!/bin/sh
# Builds MiniMalloc's C++ (google/minimalloc at 9f5cf81) against Debian
# bookworm's libabsl-dev 20220623 (apt-get install g++ libabsl-dev), without
# the network its CMakeLists needs for googletest and abseil:
#   - that abseil has no absl/log, so shim/ supplies LOG (to stderr) and
#     DLOG (compiled out, as absl's is under NDEBUG);
#   - its absl::string_view is not std::string_view, so converter.cc's one
#     `const std::string_view& record` becomes absl::string_view (the CSV
#     reader only; the solver is untouched).
# Usage: build.sh MINIMALLOC_REPO OUT_DIR. OUT_DIR gets `minimalloc` (the
# upstream CLI) and `driver` (driver.cc, which goldens are made with).
set -eu
repo=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/src"
for f in converter.cc converter.h minimalloc.cc minimalloc.h solver.cc solver.h \
         sweeper.cc sweeper.h validator.cc validator.h main.cc; do
  git -C "$repo" show 9f5cf81:src/$f > "$out/src/$f"
done
sed -i 's/const std::string_view& record/const absl::string_view\& record/' "$out/src/converter.cc"
cd "$out"
CXX="g++ -std=c++20 -O3 -DNDEBUG -I$here/shim -Isrc"
for f in converter minimalloc solver sweeper validator main; do $CXX -c src/$f.cc -o $f.o; done
$CXX -c "$here/driver.cc" -o driver.o
LIBS=$(ls /usr/lib/x86_64-linux-gnu/libabsl_*.so | sed 's/.*lib\(absl_.*\)\.so/-l\1/' | tr '\n' ' ')
g++ -o minimalloc main.o converter.o minimalloc.o solver.o sweeper.o validator.o $LIBS -lpthread
g++ -o driver driver.o converter.o minimalloc.o solver.o sweeper.o validator.o $LIBS -lpthread
