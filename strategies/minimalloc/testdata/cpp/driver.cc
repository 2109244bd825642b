// Test driver: solves one MiniMalloc CSV with the given parameters and
// prints "status height backtracks seconds" then one offset per line.
// argv: input capacity bits heuristics timeout_s
// bits: 10 chars of 0/1 for canonical_only, section_inference,
// dynamic_ordering, check_dominance, unallocated_floor, static_preordering,
// dynamic_decomposition, monotonic_floor, hatless_pruning, minimize_capacity.
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "converter.h"
#include "solver.h"
int main(int argc, char** argv) {
  if (argc != 6) { std::cerr << "usage\n"; return 2; }
  std::ifstream ifs(argv[1]);
  std::string csv((std::istreambuf_iterator<char>(ifs)), std::istreambuf_iterator<char>());
  auto problem = minimalloc::FromCsv(csv);
  if (!problem.ok()) { std::cerr << problem.status() << "\n"; return 2; }
  problem->capacity = std::stoll(argv[2]);
  // Test convention: an offset of -1 means "not fixed" (upstream's CSV
  // reader fixes every buffer once the column exists).
  for (auto& b : problem->buffers) if (b.offset && *b.offset < 0) b.offset.reset();
  std::string b = argv[3];
  minimalloc::SolverParams p;
  double t = std::stod(argv[5]);
  if (t > 0) p.timeout = absl::Seconds(t);
  p.canonical_only = b[0] == '1'; p.section_inference = b[1] == '1';
  p.dynamic_ordering = b[2] == '1'; p.check_dominance = b[3] == '1';
  p.unallocated_floor = b[4] == '1'; p.static_preordering = b[5] == '1';
  p.dynamic_decomposition = b[6] == '1'; p.monotonic_floor = b[7] == '1';
  p.hatless_pruning = b[8] == '1'; p.minimize_capacity = b[9] == '1';
  p.preordering_heuristics = absl::StrSplit(argv[4], ',', absl::SkipEmpty());
  minimalloc::Solver solver(p);
  absl::Time start = absl::Now();
  auto sol = solver.Solve(*problem);
  double secs = absl::ToDoubleSeconds(absl::Now() - start);
  if (!sol.ok()) {
    std::cout << "error " << absl::StatusCodeToString(sol.status().code()) << " "
              << solver.get_backtracks() << " " << secs << "\n";
    return 0;
  }
  std::cout << "ok " << sol->height << " " << solver.get_backtracks() << " " << secs << "\n";
  for (auto o : sol->offsets) std::cout << o << "\n";
  return 0;
}
