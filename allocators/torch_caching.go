package allocators

import (
	"fmt"
	"math"
	"math/bits"

	"membench/workloads"
)

// This file is torch-caching's core (DeviceCachingAllocator: pools, best
// fit, splitting, coalescing, segments); beside it are its options
// (torch_caching_options.go), expandable segments
// (torch_caching_expandable.go), release and garbage collection
// (torch_caching_release.go) and streams (torch_caching_streams.go).

// torchCaching simulates PyTorch's CUDA caching allocator
// (c10/cuda/CUDACachingAllocator.cpp, DeviceCachingAllocator, read at
// pytorch/pytorch commit 001074d25084fdb87a799823e395a50f5ec044d3; its
// options as that revision's CUDAAllocatorConfig::parseArgs,
// c10/cuda/CUDAAllocatorConfig.cpp, reads PYTORCH_CUDA_ALLOC_CONF) on one
// device. The rules, in our words:
//
//   - Rounding. A request below 512 bytes (kMinBlockSize) becomes 512;
//     others round up to a multiple of 512. With roundup_power2_divisions
//     giving d > 1 for the request's size range, a size above 512*d instead
//     rounds up to the next of d equal steps between the powers of two
//     around it (a power of two stays). The ranges are the 16 powers of two
//     from 1 MiB to 32 GiB: sizes below 2 MiB use the first, sizes of 32 GiB
//     and up the last.
//   - Pools. Rounded sizes up to 1 MiB (kSmallSize) are served from the
//     small pool, larger ones from the large pool. Every stream has its own
//     pair: a cached block is reused only by the stream it was allocated on.
//     Each pool is a set of free blocks ordered by (size, address).
//   - Segments. When no cached block fits, a segment is obtained from the
//     device: 2 MiB (kSmallBuffer) for the small pool, 20 MiB (kLargeBuffer)
//     for large sizes below 10 MiB (kMinLargeAlloc), and the size rounded up
//     to 2 MiB (kRoundLarge) from 10 MiB on.
//   - Best fit. The cached block chosen is the smallest one >= the size,
//     ties broken by address. With max_split_size set, a size below it
//     never takes a cached block of max_split_size or more, and a size of
//     max_split_size or more only takes a block less than 20 MiB
//     (kLargeBuffer) larger.
//   - Splitting. The chosen block is split, its front handed out and the
//     rest cached, when the rest is at least 512 bytes in the small pool (or
//     anywhere with expandable segments), or, in the large pool, when the
//     rest exceeds 1 MiB and the size is below max_split_size (so oversize
//     blocks are never split).
//   - Coalescing. A freed block merges with free neighbours of the same
//     segment before it is cached.
//   - Streams. A block used by other streams (record_stream) is not cached
//     when it is freed: it waits for an event on each of those streams, and
//     is cached once all of them have passed (here: at each stream's next
//     sync point after the free). Until then its bytes stay in use.
//   - Expandable segments. With expandable_segments, each stream and pool
//     has segments that reserve address space (1 1/8 of memory_limit, or
//     1 TiB without one) and map physical pages on demand: 2 MiB pages for
//     the small pool, 20 MiB for the large. A request no cached block fits
//     maps just enough pages at the lowest address of a segment where free
//     and unmapped space together fit it, usually the segment's end, so
//     blocks tile one growing segment. Best fit counts a block followed by
//     unmapped space as that much larger, preferring interior blocks.
//     Reserved counts mapped pages; releasing the cache unmaps every wholly
//     free page.
//   - Memory limit. memory_limit plays the role of the per-process memory
//     fraction (and of the device's capacity): a device allocation that
//     would take the reserved bytes past it fails. As upstream, the check
//     is made with the segment size the request would get even when
//     expandable segments map less.
//   - Garbage collection. With memory_limit and garbage_collection_threshold
//     = t set, before asking the device for a segment, if the reserved
//     bytes exceed t*memory_limit, whole cached segments of the large pools
//     whose age (cache lookups since they were cached) is at least the
//     average are given back, pass after pass, until the excess is
//     reclaimed or nothing more can go.
//   - Out of memory. When the device refuses a segment, the allocator first
//     (with max_split_size set) gives back the stream's smallest cached
//     oversize segment that is large enough, or else its largest oversize
//     ones until enough bytes are back, and retries; then it gives back
//     every cached whole segment of every pool (and unmaps the free pages
//     of expandable segments) and retries once more. A request that still
//     fails is an OOM; what was given back stays given back. Upstream also
//     waits for every stream there; a simulation cannot make streams finish
//     early, so frees waiting for other streams keep waiting.
//   - Options. roundup_power2_divisions:N sets every range;
//     roundup_power2_divisions:[B:N,...,>:N] sets the range of each boundary
//     B (MiB, a power of two), the first boundary's value also every range
//     below it, and `>` the last boundary's range and all above it (every
//     range when it comes first); ranges between boundaries keep 0.
//     max_split_size_mb must exceed 20. Any other key than those, backend,
//     expandable_segments, garbage_collection_threshold,
//     release_lock_on_cudamalloc and the pinned_* options of that revision
//     is an error.
//
// Later PyTorch differs in its options: it takes max_non_split_rounding_mb
// (the 20 MiB of the best-fit rule above, made settable) and
// pinned_use_background_threads, and its
// AcceleratorAllocatorConfig (c10/core/AllocatorConfig.cpp) starts `>` at
// the range after the last boundary's, takes max_split_size_mb:20, asks for
// the closing bracket and words its errors differently.
//
// The device is a simulated address space handing out segments first fit by
// address, as cudaMalloc would; every segment is a multiple of 2 MiB, so
// segments are 2 MiB aligned and blocks 512-byte aligned. Reserved counts
// the bytes of live segments.
type torchCaching struct {
	pools []*tcPools // by stream
	// blocks holds every block by id, as BFC holds its chunks: addr is
	// the offset, prev and next the neighbours in the segment (ids, or
	// bfcNone), fnext the size classes' link, bin the set that lists the
	// block (tcCached, tcUnmapped, or bfcNone) and inUse whether it is
	// handed out. What the cache's searches do not read lives in aux.
	blocks []bfcChunk
	aux    []tcAux
	byAddr addrTable // offset -> id of every block but the merged away, once indexed
	// indexed says byAddr is kept. It is built at the first call that
	// names a block by offset, so a replay that passes handles
	// (blockHandles) never keeps it; expandable segments always do.
	indexed bool
	unused  int32     // ids merged away, linked by next; bfcNone for none
	uses    [][]int32 // by id: the other streams that used the block after the first (record_stream)
	since   []int64   // by id: the pool's lookup count when the block was cached
	device  fitArena
	limit   int64 // 0: unlimited (no memory fraction set)
	conf    tcConfig
	// pending holds, by stream, the freed blocks waiting for its next sync.
	pending  [][]int32
	lookups  [2]int64 // cache searches per pool kind: the GC clock
	reserved [2]int64 // bytes reserved per pool kind
	used     [2]int64 // chunk bytes handed out per pool kind
	stats    statTracker
	// onSegment, when set, hears of every segment reserved (pages mapped)
	// and given back (unmapped), for calibration (segmentLogger).
	onSegment func(free bool, size int64)
}

// PyTorch's constants, named as in CUDACachingAllocator.cpp.
const (
	tcMinBlockSize  = 512
	tcSmallSize     = 1 << 20
	tcSmallBuffer   = 2 << 20
	tcLargeBuffer   = 20 << 20
	tcMinLargeAlloc = 10 << 20
	tcRoundLarge    = 2 << 20
	// tcMaxStreams bounds the stream numbers simulated.
	tcMaxStreams = 1 << 16
	// tcAddressSpace is an expandable segment's address space without a
	// memory_limit.
	tcAddressSpace = 1 << 40
)

// Pool kinds.
const (
	tcSmall = 0
	tcLarge = 1
)

// The sets that list a block, in its bin: a free block is listed in one;
// a block allocated, waiting for other streams or being moved between
// sets (bfcNone) is in none.
const (
	tcCached   = 0 // its pool's cache
	tcUnmapped = 1 // its pool's unmapped ranges (expandable segments)
)

// tcAux is the rest of a block: its pool and expandable segment (nil: a
// cudaMalloc segment), and whether its pages are unmapped. events counts,
// while the block is allocated, the other streams that used it (use0,
// the first, then its entries in torchCaching.uses); once its free is
// requested, those still to pass before the free completes.
type tcAux struct {
	pool     *tcPool
	seg      *tcExpSeg
	events   int32
	use0     int32
	unmapped bool
}

// tcPool is the set of cached (free) blocks of one pool of one stream,
// kept as BFC keeps its free chunks: exact size classes over a bitmap
// (off with expandable segments, whose best fit walks the blocks in
// order) beside a set ordered by (size, offset), with ids as handles.
// Best fit is the smallest size at or above the request, lowest offset
// first: the order of PyTorch's BlockComparatorSize within a stream.
type tcPool struct {
	kind     int
	stream   int32
	classes  sizeClasses
	free     freeSet // cached blocks no class holds
	unmapped ordset  // unmapped ranges of expandable segments: key offset
}

// tcClassStreams is how many streams get size classes (a large pool's
// take 0.25 MiB); the others keep every cached block in the ordered set.
const tcClassStreams = 16

// tcPools are one stream's pools.
type tcPools struct{ small, large tcPool }

// free reports whether block h is cached or unmapped: neither handed out
// nor waiting for a stream.
func (a *torchCaching) free(h int32) bool { return a.blocks[h].bin != bfcNone }

func (a *torchCaching) isSplit(h int32) bool {
	return a.blocks[h].prev != bfcNone || a.blocks[h].next != bfcNone
}

// insert caches block h in p.
func (a *torchCaching) insert(p *tcPool, h int32) {
	if a.conf.gcThreshold > 0 {
		a.since[h] = a.lookups[p.kind] // read only by garbage collection
	}
	b := &a.blocks[h]
	b.bin = tcCached
	if !p.classes.insertSparse(a.blocks, h) {
		p.free.insert(fentry{size: b.size, addr: b.addr, h: h})
	}
}

// remove takes block h out of p's cache.
func (a *torchCaching) remove(p *tcPool, h int32) {
	b := &a.blocks[h]
	b.bin = bfcNone
	if !p.classes.remove(a.blocks, h) {
		p.free.remove(b.size, b.addr)
	}
}

// cachedAt returns the block of the free set entry (bi, i).
func (a *torchCaching) cachedAt(p *tcPool, bi, i int) int32 { return p.free.blocks[bi][i].h }

// newBlock makes a block of pool p (and expandable segment s) at off,
// reusing an id merged away where it can. It is in no set and no index;
// the blocks may move.
func (a *torchCaching) newBlock(off, size int64, prev, next int32, p *tcPool, s *tcExpSeg) int32 {
	b := bfcChunk{addr: off, size: size, prev: prev, next: next, bin: bfcNone}
	h := a.unused
	if h != bfcNone {
		a.unused = a.blocks[h].next
		a.blocks[h] = b
		a.aux[h] = tcAux{pool: p, seg: s}
		return h
	}
	h = int32(len(a.blocks))
	a.blocks = append(a.blocks, b)
	a.aux = append(a.aux, tcAux{pool: p, seg: s})
	if int(h) == len(a.uses) {
		a.uses = append(a.uses, nil)
		a.since = append(a.since, 0)
	}
	return h
}

// splitAt cuts block h (of pool p and expandable segment s) after its
// first n bytes and returns the new block that holds the rest: indexed,
// in no set.
func (a *torchCaching) splitAt(h int32, n int64, p *tcPool, s *tcExpSeg) int32 {
	b := &a.blocks[h]
	rest := a.newBlock(b.addr+n, b.size-n, h, b.next, p, s)
	b = &a.blocks[h] // newBlock may have moved the blocks
	if b.next != bfcNone {
		a.blocks[b.next].prev = rest
	}
	b.next = rest
	b.size = n
	a.index(rest)
	return rest
}

// index enters block h under its offset; unindex takes it out. A block's
// offset changes only while it is out. Both are no-ops until the address
// table is built (indexAll).
func (a *torchCaching) index(h int32) {
	if a.indexed {
		a.byAddr.put(a.blocks[h].addr, h)
	}
}

func (a *torchCaching) unindex(h int32) {
	if a.indexed {
		a.byAddr.del(a.blocks[h].addr, a.blocks)
	}
}

// indexAll builds the address table from the blocks, at a call boundary,
// where every block is whole; ids merged away have size 0.
func (a *torchCaching) indexAll() {
	a.indexed = true
	for h := range a.blocks {
		if a.blocks[h].size > 0 {
			a.byAddr.put(a.blocks[h].addr, int32(h))
		}
	}
}

// at returns the block starting at off, or bfcNone. Only expandable
// segments, which keep the address table, ask.
func (a *torchCaching) at(off int64) int32 {
	if h, ok := a.byAddr.get(off, a.blocks); ok {
		return h
	}
	return bfcNone
}

// dropBlock keeps the id of block h, merged away, for reuse.
func (a *torchCaching) dropBlock(h int32) {
	a.blocks[h] = bfcChunk{next: a.unused, bin: bfcNone}
	a.aux[h] = tcAux{}
	a.unused = h
}

// Reset implements Resetter: the allocator returns to its freshly built
// state (nothing reserved) and keeps its tables' memory.
func (a *torchCaching) Reset() {
	for _, sp := range a.pools {
		if sp != nil {
			for _, p := range []*tcPool{&sp.small, &sp.large} {
				p.classes.clear(a.blocks)
				p.free.clear()
				p.unmapped.clear()
			}
		}
	}
	clear(a.aux) // drop the pointers
	a.blocks, a.aux, a.unused = a.blocks[:0], a.aux[:0], bfcNone
	for i := range a.uses {
		a.uses[i] = a.uses[i][:0]
	}
	if a.indexed {
		a.byAddr.clear()
	}
	a.indexed = a.conf.expandable
	a.device.free.byAddr.clear()
	a.device.free.bySize.clear()
	a.device.end = 0
	for i := range a.pending {
		a.pending[i] = a.pending[i][:0]
	}
	a.lookups, a.reserved, a.used = [2]int64{}, [2]int64{}, [2]int64{}
	a.stats = statTracker{}
}

func init() {
	Register(Info{
		Name: "torch-caching",
		Doc: "PyTorch's CUDA caching allocator: 512-byte rounding, small (<= 1 MiB, 2 MiB segments) " +
			"and large (20 MiB segments below 10 MiB, 2 MiB rounding above) pools per stream, best fit with splitting, " +
			"coalescing on free, cached segments given back on OOM; PYTORCH_CUDA_ALLOC_CONF options through alloc_conf",
		Params: []workloads.ParamDoc{
			memoryLimitDoc,
			{Name: "alloc_conf", Default: "", Doc: "PYTORCH_CUDA_ALLOC_CONF, whole, as PyTorch 001074d2 reads it: max_split_size_mb, " +
				"roundup_power2_divisions (N or [256:1,512:2,>:8]), garbage_collection_threshold, expandable_segments"},
			{Name: "max_split_size", Default: "0", Doc: "blocks this large or larger are not split (bytes, > 20M); 0 means unlimited"},
			{Name: "roundup_power2_divisions", Default: "0", Doc: "round sizes up to this many steps per power-of-two interval (a power of two; 0 or 1: off)"},
			{Name: "garbage_collection_threshold", Default: "0", Doc: "with memory_limit, reclaim old cached segments once reserved exceeds this fraction of it (0 < t < 1); 0: off"},
		},
		New: newTorchCaching,
	})
}

func newTorchCaching(args *workloads.Args) (Allocator, error) {
	a := &torchCaching{
		byAddr: addrTable{grain: 8}, // blocks start at multiples of 512; 256 as BFC's
		unused: bfcNone,
		device: fitArena{free: freeList{policy: firstFit}},
		limit:  args.Bytes("memory_limit", 0),
		conf:   defaultTCConfig(),
	}
	conf := args.String("alloc_conf", "")
	maxSplit := args.Bytes("max_split_size", 0)
	divisions := int64(args.Int("roundup_power2_divisions", 0))
	gc := args.Float("garbage_collection_threshold", 0)
	if conf != "" {
		if maxSplit != 0 || divisions != 0 || gc != 0 {
			return nil, workloads.Usagef("torch-caching: alloc_conf and max_split_size, roundup_power2_divisions or garbage_collection_threshold: give the options one way, not both")
		}
		c, err := parseAllocConf(conf)
		if err != nil {
			return nil, workloads.Usagef("torch-caching: alloc_conf=%s: %v", workloads.Echo(conf), err)
		}
		a.conf = c
	} else {
		switch {
		case maxSplit == 0:
		case maxSplit <= tcLargeBuffer:
			return nil, workloads.Usagef("torch-caching: max_split_size=%d: want more than 20M (kLargeBuffer)", maxSplit)
		default:
			a.conf.maxSplit = maxSplit
		}
		if divisions < 0 || (divisions > 1 && divisions&(divisions-1) != 0) {
			return nil, workloads.Usagef("torch-caching: roundup_power2_divisions=%d: want 0 or a power of two", divisions)
		}
		for i := range a.conf.divisions {
			a.conf.divisions[i] = divisions
		}
		if gc < 0 || gc >= 1 {
			return nil, workloads.Usagef("torch-caching: garbage_collection_threshold=%g: want 0 < t < 1 (0: off)", gc)
		}
		a.conf.gcThreshold = gc
	}
	a.pools = []*tcPools{a.newPools(0)}
	a.indexed = a.conf.expandable
	return a, nil
}

func (a *torchCaching) newPools(stream int) *tcPools {
	sp := &tcPools{small: tcPool{kind: tcSmall, stream: int32(stream)}, large: tcPool{kind: tcLarge, stream: int32(stream)}}
	if !a.conf.expandable && stream < tcClassStreams {
		// Sizes are multiples of 512: a class per 512 bytes.
		sp.small.classes.init(tcSmallBuffer+tcMinBlockSize, 9)
		sp.large.classes.init(classLimit, 9)
	}
	return sp
}

// roundSize applies the 512-byte or power-of-two-division rounding. A
// size below 512 rounds up to 512 (kMinBlockSize) with the multiples of
// 512, and division rounding never applies to it, so it needs no branch
// of its own, which would be mispredicted on mixed sizes.
func (a *torchCaching) roundSize(size int64) int64 {
	if d := a.conf.divisionsFor(size); d > 1 && size > tcMinBlockSize*d {
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

func (a *torchCaching) streamPools(stream int) *tcPools {
	if stream < len(a.pools) && a.pools[stream] != nil {
		return a.pools[stream]
	}
	return a.addPools(stream)
}

// addPools makes stream's pools.
func (a *torchCaching) addPools(stream int) *tcPools {
	if stream >= len(a.pools) {
		a.pools = append(a.pools, make([]*tcPools, stream+1-len(a.pools))...)
	}
	p := a.newPools(stream)
	a.pools[stream] = p
	return p
}

func (a *torchCaching) Alloc(orig int64) (Block, error) { return a.block(a.allocHandle(orig, 0)) }

// AllocOn implements StreamAllocator: the request is served from stream's
// own pools.
func (a *torchCaching) AllocOn(orig int64, stream int) (Block, error) {
	return a.block(a.allocHandle(orig, stream))
}

// block returns the Block of the allocated block h, or err.
func (a *torchCaching) block(h int32, err error) (Block, error) {
	if err != nil {
		return Block{}, err
	}
	b := &a.blocks[h]
	return Block{Offset: b.addr, Size: b.size}, nil
}

// allocHandle implements blockHandles: AllocOn, returning the block's id,
// which stays the block's until its free.
func (a *torchCaching) allocHandle(orig int64, stream int) (int32, error) {
	if orig <= 0 {
		return bfcNone, badSize("torch-caching", orig)
	}
	if stream < 0 || stream >= tcMaxStreams {
		return bfcNone, fmt.Errorf("torch-caching: stream %d: want 0 to %d", stream, tcMaxStreams-1)
	}
	if orig > maxRequest {
		return bfcNone, a.stats.oom("torch-caching", orig)
	}
	size := a.roundSize(orig)
	sp := a.streamPools(stream)
	p := &sp.large
	if size <= tcSmallSize {
		p = &sp.small
	}
	h := a.cachedBlock(p, size)
	if h == bfcNone {
		if a.limit > 0 && a.conf.gcThreshold > 0 {
			a.collectGarbage()
		}
		seg := segmentSize(size)
		h = a.newSegment(p, size, seg)
		if h == bfcNone && a.releaseOversize(p, size) {
			h = a.newSegment(p, size, seg)
		}
		if h == bfcNone {
			a.releaseAll()
			h = a.newSegment(p, size, seg)
		}
		if h == bfcNone {
			return bfcNone, a.stats.oom("torch-caching", orig)
		}
	}
	if a.shouldSplit(p, a.blocks[h].size, size) {
		var s *tcExpSeg // nil but with expandable segments
		if a.conf.expandable {
			s = a.aux[h].seg
		}
		a.insert(p, a.splitAt(h, size, p, s))
	}
	b := &a.blocks[h]
	b.inUse = true
	a.stats.allocated(b.size)
	a.used[p.kind] += b.size
	return h, nil
}

// cachedBlock takes the best-fitting cached block for size out of p, or
// returns bfcNone.
func (a *torchCaching) cachedBlock(p *tcPool, size int64) int32 {
	a.lookups[p.kind]++
	if !a.conf.expandable {
		// The lowest block of the first non-empty class at or above
		// size, or if none is, the set's first block from there.
		if a.conf.maxSplit == math.MaxInt64 {
			// No oversize rule: the best fit is taken.
			if h := p.classes.take(a.blocks, size); h != bfcNone {
				a.blocks[h].bin = bfcNone
				return h
			}
		} else if h := p.classes.first(size); h != bfcNone {
			return a.takeCached(p, h, size)
		}
		bi, i, ok := p.free.lowerBound(size)
		if !ok {
			return bfcNone
		}
		return a.takeCached(p, a.cachedAt(p, bi, i), size)
	}
	bi, i, ok := p.free.lowerBound(size)
	if !ok {
		return bfcNone
	}
	h := a.cachedAt(p, bi, i)
	if a.aux[h].seg != nil {
		// A block followed by unmapped space counts as that much larger:
		// take a later one that is less so.
		for {
			if i++; i == len(p.free.blocks[bi]) {
				if bi, i = bi+1, 0; bi == len(p.free.blocks) {
					break
				}
			}
			nb := a.cachedAt(p, bi, i)
			if a.aux[h].seg == nil || a.expandableSize(nb) >= a.expandableSize(h) {
				break
			}
			h = nb
		}
	}
	return a.takeCached(p, h, size)
}

// takeCached takes block h of p, the best fit for size, out of the cache,
// unless max_split_size keeps it for other requests (bfcNone).
func (a *torchCaching) takeCached(p *tcPool, h int32, size int64) int32 {
	n := a.blocks[h].size
	if size < a.conf.maxSplit && n >= a.conf.maxSplit {
		return bfcNone // an oversize block is kept for oversize requests
	}
	if size >= a.conf.maxSplit && n >= size+tcLargeBuffer {
		return bfcNone // too much waste for an oversize request
	}
	a.remove(p, h)
	return h
}

// shouldSplit reports whether a block of n bytes of p taken for size
// bytes is split.
func (a *torchCaching) shouldSplit(p *tcPool, n, size int64) bool {
	rest := n - size
	if p.kind == tcSmall || a.conf.expandable {
		return rest >= tcMinBlockSize
	}
	return size < a.conf.maxSplit && rest > tcSmallSize
}

// newSegment asks the device for a segment of seg bytes for a request of
// size (rounded) bytes, or with expandable segments maps pages for it, or
// returns bfcNone when that would pass memory_limit. The block returned
// is not cached: the caller takes it.
func (a *torchCaching) newSegment(p *tcPool, size, seg int64) int32 {
	if a.limit > 0 && a.stats.st.Reserved+seg > a.limit {
		return bfcNone
	}
	if a.conf.expandable {
		return a.expandBlock(p, size)
	}
	h := a.newBlock(a.device.alloc(seg), seg, bfcNone, bfcNone, p, nil)
	a.index(h)
	a.reserve(p.kind, seg)
	return h
}

func (a *torchCaching) reserve(kind int, n int64) {
	a.stats.reserve(n)
	a.reserved[kind] += n
	if a.onSegment != nil {
		a.onSegment(false, n)
	}
}

func (a *torchCaching) unreserve(kind int, n int64) {
	a.stats.st.Reserved -= n
	a.reserved[kind] -= n
	if a.onSegment != nil {
		a.onSegment(true, n)
	}
}

// coalesce merges block h of p (neither cached nor unmapped-listed) with
// its neighbours where they are free and mapped alike, and returns the
// block that holds them all, out of every set: h's previous neighbour
// where that took h in, which keeps its offset and so its address table
// entry.
func (a *torchCaching) coalesce(p *tcPool, h int32) int32 {
	if prev := a.blocks[h].prev; a.mergeable(h, prev) {
		a.unlist(p, prev)
		a.absorb(prev, h)
		h = prev
	}
	if next := a.blocks[h].next; a.mergeable(h, next) {
		a.unlist(p, next)
		a.absorb(h, next)
	}
	return h
}

// mergeable reports whether n, a neighbour of block h, is free and mapped
// as h is. Without expandable segments every block is mapped.
func (a *torchCaching) mergeable(h, n int32) bool {
	if n == bfcNone || !a.free(n) {
		return false
	}
	return !a.conf.expandable || a.aux[n].unmapped == a.aux[h].unmapped
}

// unlist takes the free block h out of p's cache or unmapped set.
func (a *torchCaching) unlist(p *tcPool, h int32) {
	if a.blocks[h].bin == tcUnmapped {
		a.blocks[h].bin = bfcNone
		p.unmapped.remove(a.blocks[h].addr, 0)
	} else {
		a.remove(p, h)
	}
}

// absorb makes block h take in n, its next neighbour, which is in no set,
// and drops n.
func (a *torchCaching) absorb(h, n int32) {
	a.unindex(n)
	b, nb := &a.blocks[h], &a.blocks[n]
	b.next = nb.next
	if b.next != bfcNone {
		a.blocks[b.next].prev = h
	}
	b.size += nb.size
	a.dropBlock(n)
}

// live returns the allocated block at off.
func (a *torchCaching) live(off int64) (int32, error) {
	if !a.indexed {
		a.indexAll()
	}
	h, ok := a.byAddr.get(off, a.blocks)
	if !ok || !a.blocks[h].inUse {
		return bfcNone, badFree("torch-caching", off)
	}
	return h, nil
}

// handle checks that h is an allocated block's id.
func (a *torchCaching) handle(h int32) error {
	if uint(h) < uint(len(a.blocks)) && a.blocks[h].inUse {
		return nil
	}
	return badHandle(h)
}

// badHandle is the error for a handle that is no allocated block's.
func badHandle(h int32) error {
	return fmt.Errorf("torch-caching: block handle %d: %w", h, ErrBadFree)
}

// Free frees the block at off at once, whatever streams used it (a free
// that has completed).
func (a *torchCaching) Free(off int64) error {
	h, err := a.live(off)
	if err != nil {
		return err
	}
	a.blocks[h].inUse = false
	a.cache(h)
	return nil
}

// freeHandle implements blockHandles: Free by id. It and the other handle
// methods hold the bodies of the offset methods, one call fewer deep.
func (a *torchCaching) freeHandle(h int32) error {
	if err := a.handle(h); err != nil {
		return err
	}
	a.blocks[h].inUse = false
	a.cache(h)
	return nil
}

// cache completes the free of block h: it merges with its free
// neighbours and joins its pool. A free that completes at once forgets
// the streams that used the block; one that waited has no events left.
func (a *torchCaching) cache(h int32) {
	x := &a.aux[h]
	if x.events > 0 {
		x.events = 0
		a.uses[h] = a.uses[h][:0]
	}
	p, n := x.pool, a.blocks[h].size
	a.stats.freed(n)
	a.used[p.kind] -= n
	a.insert(p, a.coalesce(p, h))
}

func (a *torchCaching) Stats() Stats {
	s := a.stats.st
	for _, sp := range a.pools {
		if sp == nil {
			continue
		}
		for _, p := range [...]*tcPool{&sp.small, &sp.large} {
			s.LargestFreeChunk = max(s.LargestFreeChunk, p.classes.largest())
			if p.free.n > 0 {
				s.LargestFreeChunk = max(s.LargestFreeChunk, p.free.last().size)
			}
		}
	}
	return s
}

// Pools implements PoolReporter: the small and large pools, all streams
// together.
func (a *torchCaching) Pools() []PoolBytes {
	return []PoolBytes{
		{Name: "small", Reserved: a.reserved[tcSmall], Allocated: a.used[tcSmall]},
		{Name: "large", Reserved: a.reserved[tcLarge], Allocated: a.used[tcLarge]},
	}
}

// Alignment implements Aligner.
func (a *torchCaching) Alignment() int64 { return tcMinBlockSize }
