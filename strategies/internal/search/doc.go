// Package search holds what membench's ports of OmniMalloc's order-search
// planners share (fpedd/omnimalloc, revision 2e9cf4ede72f): the decoder
// that turns a permutation of the buffers into a placement by first fit
// (src/cpp/allocators/first_fit.cpp, FirstFitPlacer), the peak-swap move
// of the local searches (src/cpp/allocators/local_search.cpp), the greedy
// orders (src/python/omnimalloc/allocators/greedy.py), and the two random
// number generators the upstream planners draw from: C++'s
// std::mt19937_64 with libstdc++'s distributions (the simulated annealing,
// hill climb and tabu search kernels) and CPython's random module (the
// genetic and random-search planners).
//
// Nothing here knows a planner's name or its registration; each planner's
// file in package strategies holds its own loop.
package search
