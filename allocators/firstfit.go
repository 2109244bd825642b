package allocators

func init() {
	registerLimited("first-fit", "baseline: one arena growing at its end up to memory_limit, a coalescing free list, "+
		"the lowest-addressed free range that fits; sizes rounded up to 256 bytes",
		func(limit int64) Allocator { return newFitAllocator("first-fit", firstFit, limit) })
}
