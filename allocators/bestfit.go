package allocators

import "membench/workloads"

func init() {
	Register(Info{
		Name: "best-fit",
		Doc: "baseline: one arena growing at its end up to memory_limit, a coalescing free list, " +
			"the smallest free range that fits (ties by lowest address); sizes rounded up to 256 bytes",
		Params: []workloads.ParamDoc{memoryLimitDoc},
		New: func(args *workloads.Args) (Allocator, error) {
			return newFitAllocator("best-fit", bestFit, args)
		},
	})
}
