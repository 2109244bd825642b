package allocators

import "membench/workloads"

func init() {
	Register(Info{
		Name: "first-fit",
		Doc: "baseline: one arena growing at its end up to memory_limit, a coalescing free list, " +
			"the lowest-addressed free range that fits; sizes rounded up to 256 bytes",
		Params: []workloads.ParamDoc{memoryLimitDoc},
		New: func(args *workloads.Args) (Allocator, error) {
			return newFitAllocator("first-fit", firstFit, args)
		},
	})
}
