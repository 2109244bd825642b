#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include "allocators/simulated_annealing.hpp"
#include "allocators/tabu_search.hpp"
using namespace omnimalloc;
// usage: main sa|hc|tabu seed iters < "size first last" lines; prints offsets in input order
int main(int argc, char** argv) {
  std::string mode = argv[1];
  uint64_t seed = std::stoull(argv[2]);
  int iters = std::stoi(argv[3]);
  std::vector<Allocation> allocs;
  long long size; long long first, last, pin; int id = 0;
  while (scanf("%lld %lld %lld %lld", &size, &first, &last, &pin) == 4) {
    std::optional<int64_t> off; if (pin >= 0) off = pin;
    allocs.emplace_back(IdType{int64_t(id)}, size, TimePoint{int64_t(first)}, TimePoint{int64_t(last + 1)}, off);
    id++;
  }
  std::vector<Allocation> out;
  if (mode == "tabu") {
    TabuSearchConfig c; c.seed = seed; c.max_iterations = iters; c.neighborhood_size = argc > 4 ? std::stoi(argv[4]) : 20; c.tabu_tenure = argc > 5 ? std::stoi(argv[5]) : 15;
    out = tabu_search_place(allocs, c);
  } else {
    SimulatedAnnealingConfig c; c.seed = seed; c.max_iterations = iters;
    c.initial_temperature = mode == "hc" ? 0.0 : (argc > 4 ? std::stod(argv[4]) : 3.0);
    c.cooling_rate = mode == "hc" ? 1.0 : (argc > 5 ? std::stod(argv[5]) : 0.998);
    out = simulated_annealing_place(allocs, c);
  }
  std::vector<int64_t> offs(allocs.size());
  for (auto& a : out) offs[std::get<int64_t>(a.id())] = *a.offset();
  for (auto o : offs) printf("%lld ", (long long)o);
  printf("\n");
}
