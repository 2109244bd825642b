// Package strategies holds the static memory planners: the Strategy
// interface, the registry, plans, their validation and the lower bounds.
//
// A new heuristic is one file that calls Register from init(). A planner's
// file holds that planner only; what several planners share lives in
// internal/kernel (spans, the interval and time indexes, gap walks,
// orders and radix sorts, the treap, the record check) and, for
// OmniMalloc's order searches, internal/search (the first-fit decoder,
// the peak-swap move, the greedy orders, C++'s and CPython's random
// streams), and LB_load is
// workloads.LoadBound. Beside the planners: gaps.go (the one-at-a-time
// offset loop of xla-heap-*, tflite-arena, tflm-* and ort-mem-pattern),
// sorted.go (the shared-object planners' loop), profiles.go (TFLite's task
// profiles and positional maximums), validate.go and exec*.go.
//
// Planner, runtime (Info.Runtime) and file:
//
//	naive                    tflite-gpu   naive.go
//	equality                 tflite-gpu   equality.go
//	greedy-in-order          tflite-gpu   greedy_in_order.go
//	greedy-by-breadth        tflite-gpu   greedy_by_breadth.go
//	greedy-by-size           tflite-gpu   greedy_by_size.go, greedy_by_size_gaps.go
//	greedy-best              tflite-gpu   greedy_best.go
//	min-cost-flow            tflite-gpu   min_cost_flow.go
//	offset-greedy-by-size    tflite-gpu   offset_greedy_by_size.go
//	tflite-arena             tflite       tflite_arena.go
//	tflm-greedy              tflm         tflm.go
//	tflm-linear              tflm         tflm.go
//	ort-mem-pattern          onnxruntime  ort_mem_pattern.go
//	xla-heap                 xla          xla_heap.go
//	xla-heap-spatial         xla          xla_heap.go
//	xla-heap-temporal        xla          xla_heap.go
//	tvm-greedy-by-size       tvm          tvm_usmp.go
//	tvm-greedy-by-conflicts  tvm          tvm_usmp.go
//	tvm-hill-climb           tvm          tvm_usmp.go
//	executorch-greedy        executorch   executorch.go
//	executorch-naive         executorch   executorch.go
//	mxnet-match-range        mxnet        mxnet.go
//	megengine-pushdown       megengine    megengine.go
//	best-of                  membench     best_of.go
//	exact                    membench     exact/exact.go (package exact)
//	minimalloc               minimalloc   minimalloc/minimalloc.go (package minimalloc)
//	idealloc                 idealloc     idealloc/idealloc.go, idealloc/boxing.go, idealloc/rheap.go (package idealloc)
//	telamalloc               telamalloc   telamalloc/telamalloc.go (package telamalloc)
//	milp                     membench     milp.go
//	greedy                   omnimalloc   greedy.go
//	simulated-annealing      omnimalloc   simulated_annealing.go
//	hill-climb               omnimalloc   hill_climb.go
//	tabu-search              omnimalloc   tabu_search.go
//	genetic                  omnimalloc   genetic.go
//	random-search            omnimalloc   random_search.go
//	exec:COMMAND             (external)   exec.go, exec_*.go
package strategies
