package allocators

import (
	"math"
	"math/bits"

	"membench/workloads"
)

// torchCaching simulates PyTorch's CUDA caching allocator
// (c10/cuda/CUDACachingAllocator.cpp, DeviceCachingAllocator) on one device
// and one stream, without expandable segments. The rules, in our words:
//
//   - Rounding. A request below 512 bytes (kMinBlockSize) becomes 512;
//     others round up to a multiple of 512. With roundup_power2_divisions
//     = d > 1, a size above 512*d instead rounds up to the next of d equal
//     steps between the powers of two around it (a power of two stays).
//   - Pools. Rounded sizes up to 1 MiB (kSmallSize) are served from the
//     small pool, larger ones from the large pool. Each pool is a set of
//     free blocks ordered by (size, address).
//   - Segments. When no cached block fits, a segment is obtained from the
//     device: 2 MiB (kSmallBuffer) for the small pool, 20 MiB (kLargeBuffer)
//     for large sizes below 10 MiB (kMinLargeAlloc), and the size rounded up
//     to 2 MiB (kRoundLarge) from 10 MiB on.
//   - Best fit. The cached block chosen is the smallest one >= the size,
//     ties broken by address (then by stream, which is moot with one
//     stream). With max_split_size set, a size below it never takes a
//     cached block of max_split_size or more, and a size of max_split_size
//     or more only takes a block less than 20 MiB (kLargeBuffer) larger.
//   - Splitting. The chosen block is split, its front handed out and the
//     rest cached, when the rest is at least 512 bytes in the small pool,
//     or, in the large pool, when the rest exceeds 1 MiB and the size is
//     below max_split_size (so oversize blocks are never split).
//   - Coalescing. A freed block merges with free neighbours of the same
//     segment before it is cached.
//   - Memory limit. memory_limit plays the role of the per-process memory
//     fraction: a device allocation that would take the reserved bytes
//     past it fails.
//   - Garbage collection. With memory_limit and garbage_collection_threshold
//     = t set, before asking the device for a segment, if the reserved
//     bytes exceed t*memory_limit, whole cached segments of the large pool
//     whose age (cache lookups since they were cached) is at least the
//     average are given back, pass after pass, until the excess is
//     reclaimed or nothing more can go.
//   - Out of memory. When the device refuses a segment, the allocator first
//     (with max_split_size set) gives back the smallest cached oversize
//     segment that is large enough, or else the largest oversize ones until
//     enough bytes are back, and retries; then it gives back every cached
//     whole segment of both pools and retries once more. A request that
//     still fails is an OOM; the segments given back stay given back.
//
// The device is a simulated address space handing out segments first fit by
// address, as cudaMalloc would; every segment is a multiple of 2 MiB, so
// segments are 2 MiB aligned and blocks 512-byte aligned. Reserved counts
// the bytes of live segments.
type torchCaching struct {
	small, large tcPool
	blocks       map[int64]*tcBlock // every block, free or allocated, by offset
	device       fitArena
	limit        int64 // 0: unlimited (no memory fraction set)
	maxSplit     int64
	divisions    int64
	gcThreshold  float64
	stats        statTracker
}

// PyTorch's constants, named as in CUDACachingAllocator.cpp.
const (
	tcMinBlockSize  = 512
	tcSmallSize     = 1 << 20
	tcSmallBuffer   = 2 << 20
	tcLargeBuffer   = 20 << 20
	tcMinLargeAlloc = 10 << 20
	tcRoundLarge    = 2 << 20
)

// tcBlock is a piece of a segment, free or allocated.
type tcBlock struct {
	off, size  int64
	pool       *tcPool
	allocated  bool
	prev, next *tcBlock // neighbours in the same segment
	gcBase     int64    // the pool's lookup count when the block was cached
}

func (b *tcBlock) isSplit() bool { return b.prev != nil || b.next != nil }

// tcPool is the set of cached (free) blocks of one pool.
type tcPool struct {
	small  bool
	blocks ordset // key size, sub offset
	// lookups counts cache searches, the clock that ages cached blocks for
	// garbage collection.
	lookups int64
}

func (p *tcPool) insert(b *tcBlock) {
	b.gcBase = p.lookups
	p.blocks.insert(b.size, b.off, 0)
}

func (p *tcPool) remove(b *tcBlock) { p.blocks.remove(b.size, b.off) }

func init() {
	Register(Info{
		Name: "torch-caching",
		Doc: "PyTorch's CUDA caching allocator (one stream): 512-byte rounding, small (<= 1 MiB, 2 MiB segments) " +
			"and large (20 MiB segments below 10 MiB, 2 MiB rounding above) pools, best fit with splitting, " +
			"coalescing on free, cached segments given back on OOM",
		Params: []workloads.ParamDoc{
			memoryLimitDoc,
			{Name: "max_split_size", Default: "0", Doc: "blocks this large or larger are not split (bytes, > 20M); 0 means unlimited"},
			{Name: "roundup_power2_divisions", Default: "0", Doc: "round sizes up to this many steps per power-of-two interval (a power of two; 0 or 1: off)"},
			{Name: "garbage_collection_threshold", Default: "0", Doc: "with memory_limit, reclaim old cached segments once reserved exceeds this fraction of it (0 < t < 1); 0: off"},
		},
		New: newTorchCaching,
	})
}

func newTorchCaching(args *workloads.Args) (Allocator, error) {
	a := &torchCaching{
		small:       tcPool{small: true},
		blocks:      map[int64]*tcBlock{},
		device:      fitArena{free: freeList{policy: firstFit}},
		limit:       args.Bytes("memory_limit", 0),
		maxSplit:    args.Bytes("max_split_size", 0),
		divisions:   int64(args.Int("roundup_power2_divisions", 0)),
		gcThreshold: args.Float("garbage_collection_threshold", 0),
	}
	switch {
	case a.maxSplit == 0:
		a.maxSplit = math.MaxInt64
	case a.maxSplit <= tcLargeBuffer:
		return nil, workloads.Usagef("torch-caching: max_split_size=%d: want more than 20M (kLargeBuffer)", a.maxSplit)
	}
	if a.divisions < 0 || (a.divisions > 1 && a.divisions&(a.divisions-1) != 0) {
		return nil, workloads.Usagef("torch-caching: roundup_power2_divisions=%d: want 0 or a power of two", a.divisions)
	}
	if a.gcThreshold < 0 || a.gcThreshold >= 1 {
		return nil, workloads.Usagef("torch-caching: garbage_collection_threshold=%g: want 0 < t < 1 (0: off)", a.gcThreshold)
	}
	return a, nil
}

// roundSize applies the 512-byte or power-of-two-division rounding.
func (a *torchCaching) roundSize(size int64) int64 {
	if size < tcMinBlockSize {
		return tcMinBlockSize
	}
	if d := a.divisions; d > 1 && size > tcMinBlockSize*d {
		if size&(size-1) == 0 {
			return size
		}
		floor := int64(1) << (bits.Len64(uint64(size)) - 1)
		step := floor / d
		if down := size &^ (step - 1); down != size {
			return down + step
		}
		return size
	}
	return roundPow2(size, tcMinBlockSize)
}

// segmentSize is the device allocation made for a rounded size.
func segmentSize(size int64) int64 {
	switch {
	case size <= tcSmallSize:
		return tcSmallBuffer
	case size < tcMinLargeAlloc:
		return tcLargeBuffer
	default:
		return roundPow2(size, tcRoundLarge)
	}
}

func (a *torchCaching) Alloc(orig int64) (Block, error) {
	if orig <= 0 {
		return Block{}, badSize("torch-caching", orig)
	}
	if orig > maxRequest {
		return Block{}, a.stats.oom("torch-caching", orig)
	}
	size := a.roundSize(orig)
	p := &a.large
	if size <= tcSmallSize {
		p = &a.small
	}
	b := a.cachedBlock(p, size)
	if b == nil {
		if a.limit > 0 && a.gcThreshold > 0 {
			a.collectGarbage()
		}
		seg := segmentSize(size)
		b = a.newSegment(p, seg)
		if b == nil && a.releaseOversize(p, size) {
			b = a.newSegment(p, seg)
		}
		if b == nil {
			a.releaseCached(&a.large)
			a.releaseCached(&a.small)
			b = a.newSegment(p, seg)
		}
		if b == nil {
			return Block{}, a.stats.oom("torch-caching", orig)
		}
	}
	if a.shouldSplit(b, size) {
		rest := &tcBlock{off: b.off + size, size: b.size - size, pool: p, prev: b, next: b.next}
		if b.next != nil {
			b.next.prev = rest
		}
		b.next = rest
		b.size = size
		a.blocks[rest.off] = rest
		p.insert(rest)
	}
	b.allocated = true
	a.stats.allocated(b.size)
	return Block{Offset: b.off, Size: b.size}, nil
}

// cachedBlock takes the best-fitting cached block for size out of p, or
// returns nil.
func (a *torchCaching) cachedBlock(p *tcPool, size int64) *tcBlock {
	p.lookups++
	n := p.blocks.ceil(size, math.MinInt64)
	if n == nil {
		return nil
	}
	if size < a.maxSplit && n.key >= a.maxSplit {
		return nil // an oversize block is kept for oversize requests
	}
	if size >= a.maxSplit && n.key >= size+tcLargeBuffer {
		return nil // too much waste for an oversize request
	}
	b := a.blocks[n.sub]
	p.remove(b)
	return b
}

func (a *torchCaching) shouldSplit(b *tcBlock, size int64) bool {
	rest := b.size - size
	if b.pool.small {
		return rest >= tcMinBlockSize
	}
	return size < a.maxSplit && rest > tcSmallSize
}

// newSegment asks the device for seg bytes, or returns nil when that would
// pass memory_limit. The segment is not cached: the caller takes it.
func (a *torchCaching) newSegment(p *tcPool, seg int64) *tcBlock {
	if a.limit > 0 && a.stats.st.Reserved+seg > a.limit {
		return nil
	}
	b := &tcBlock{off: a.device.alloc(seg), size: seg, pool: p}
	a.blocks[b.off] = b
	a.stats.reserve(seg)
	return b
}

// releaseSegment gives a cached whole segment back to the device.
func (a *torchCaching) releaseSegment(b *tcBlock) {
	b.pool.remove(b)
	delete(a.blocks, b.off)
	a.device.free.put(b.off, b.size)
	a.stats.st.Reserved -= b.size
}

// releaseOversize gives back cached segments of max_split_size or more:
// the smallest one that covers the request, or else the largest ones until
// as many bytes as the request (at least max_split_size) are back. It
// reports whether it freed enough. Oversize cached blocks are always whole
// segments, since oversize blocks are never split.
func (a *torchCaching) releaseOversize(p *tcPool, size int64) bool {
	if a.maxSplit == math.MaxInt64 {
		return false
	}
	want := max(size, a.maxSplit)
	if n := p.blocks.ceil(want, math.MinInt64); n != nil {
		b := a.blocks[n.sub]
		if b.isSplit() {
			return false
		}
		a.releaseSegment(b)
		return true
	}
	var released int64
	for n := p.blocks.last(); n != nil && released < want && n.key >= a.maxSplit; n = p.blocks.last() {
		b := a.blocks[n.sub]
		if b.isSplit() {
			break
		}
		released += b.size
		a.releaseSegment(b)
	}
	return released >= want
}

// releaseCached gives back every cached whole segment of p.
func (a *torchCaching) releaseCached(p *tcPool) {
	var whole []*tcBlock
	p.blocks.each(func(n *onode) bool {
		if b := a.blocks[n.sub]; !b.isSplit() {
			whole = append(whole, b)
		}
		return true
	})
	for _, b := range whole {
		a.releaseSegment(b)
	}
}

// collectGarbage gives back old cached whole segments of the large pool
// while the reserved bytes exceed the threshold.
func (a *torchCaching) collectGarbage() {
	threshold := int64(a.gcThreshold * float64(a.limit))
	if a.stats.st.Reserved <= threshold {
		return
	}
	target := a.stats.st.Reserved - threshold
	p := &a.large
	var candidates []*tcBlock
	var totalAge float64
	p.blocks.each(func(n *onode) bool {
		if b := a.blocks[n.sub]; !b.isSplit() {
			candidates = append(candidates, b)
			totalAge += float64(p.lookups - b.gcBase)
		}
		return true
	})
	count := len(candidates)
	var reclaimed int64
	for freed := true; reclaimed < target && freed && count > 0; {
		ageThreshold := totalAge / float64(count)
		freed = false
		kept := candidates[:0]
		for _, b := range candidates {
			age := float64(p.lookups - b.gcBase)
			if age < ageThreshold {
				kept = append(kept, b)
				continue
			}
			freed = true
			reclaimed += b.size
			totalAge -= age
			count--
			a.releaseSegment(b)
		}
		candidates = kept
	}
}

func (a *torchCaching) Free(off int64) error {
	b, ok := a.blocks[off]
	if !ok || !b.allocated {
		return badFree("torch-caching", off)
	}
	b.allocated = false
	a.stats.freed(b.size)
	if prev := b.prev; prev != nil && !prev.allocated {
		prev.pool.remove(prev)
		delete(a.blocks, b.off)
		b.off, b.size = prev.off, prev.size+b.size
		b.prev = prev.prev
		if b.prev != nil {
			b.prev.next = b
		}
		a.blocks[b.off] = b
	}
	if next := b.next; next != nil && !next.allocated {
		next.pool.remove(next)
		delete(a.blocks, next.off)
		b.size += next.size
		b.next = next.next
		if b.next != nil {
			b.next.prev = b
		}
	}
	b.pool.insert(b)
	return nil
}

func (a *torchCaching) Stats() Stats {
	s := a.stats.st
	for _, p := range []*tcPool{&a.small, &a.large} {
		if n := p.blocks.last(); n != nil && n.key > s.LargestFreeChunk {
			s.LargestFreeChunk = n.key
		}
	}
	return s
}

// Alignment implements Aligner.
func (a *torchCaching) Alignment() int64 { return tcMinBlockSize }
