package allocators

// CacheEmptier is implemented by allocators whose runtime can give the
// memory they cache back to the device on request (PyTorch's
// torch.cuda.empty_cache(), OneFlow's flow.cuda.empty_cache()). Replay
// calls it at a trace's EmptyCache events; allocators without it (their
// runtimes have no such call) take those events as no-ops.
type CacheEmptier interface {
	// EmptyCache gives back what the allocator's runtime would.
	EmptyCache()
}

// emptyCache empties a's cache where it can.
func emptyCache(a Allocator) {
	if e, ok := a.(CacheEmptier); ok {
		e.EmptyCache()
	}
}

// EmptyCache passes the call on to the wrapped allocator, if it takes it.
func (v *Verifier) EmptyCache() { emptyCache(v.a) }

// EmptyCache implements CacheEmptier as torch.cuda.empty_cache() does
// (DeviceCachingAllocator::emptyCache, release_cached_blocks): every
// cached whole segment of every pool goes back to the device and the
// wholly free pages of expandable segments are unmapped, as on the last
// retry of an out-of-memory request (releaseAll). Upstream first waits
// for the events of frees that other streams hold; a simulation cannot
// make streams finish early, so those frees keep waiting for their
// streams' sync points and their segments stay.
func (a *torchCaching) EmptyCache() { a.releaseAll() }

// EmptyCache implements CacheEmptier as OneFlow's empty_cache does
// (VirtualMachine::ShrinkAllMem): every stream's allocator gives its
// wholly free blocks back (shrink).
func (a *oneflowBin) EmptyCache() { a.shrink() }
