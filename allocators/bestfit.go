package allocators

func init() {
	registerLimited("best-fit", "baseline: one arena growing at its end up to memory_limit, a coalescing free list, "+
		"the smallest free range that fits (ties by lowest address); sizes rounded up to 256 bytes",
		func(limit int64) Allocator { return newFitAllocator("best-fit", bestFit, limit) })
}
