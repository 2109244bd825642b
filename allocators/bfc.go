package allocators

import (
	"fmt"
	"math"
	"math/bits"

	"membench/workloads"
)

// This file ports TensorFlow/XLA's BFC allocator
// (xla/tsl/framework/bfc_allocator.cc, non-partitioned mode) rule by rule,
// as stated in testdata/bfc/RULES.md, on the simulated device the reference
// replays ran on (device.go). The golden test checks every reference replay.
// Its chunk record, bfcChunk, and the indexes over it (sizeclass.go,
// freeset.go, addrtable.go) serve torch-caching and oneflow-bin too.

const (
	bfcMinAlloc    = 256 // kMinAllocationSize
	bfcNumBins     = 21  // kNumBins
	bfcDefaultFrag = 128 << 20
	// bfcDefaultLimit is the memory_limit when none is given: a 16 GiB device.
	bfcDefaultLimit = 16 << 30
	bfcNone         = -1 // invalid chunk handle or bin
	// bfcMaxLimit (4 PiB) keeps every size sum and doubling clear of
	// overflow.
	bfcMaxLimit = 1 << 52
)

func init() {
	Register(Info{
		Name: "bfc",
		Doc:  "TensorFlow's best-fit-with-coalescing allocator (exact port of bfc_allocator.cc)",
		Params: []workloads.ParamDoc{
			{Name: "memory_limit", Default: "16G", Doc: "device bytes BFC may reserve (K/M/G/T suffixes)"},
			{Name: "allow_growth", Default: "true", Doc: "grow regions from 2 MiB by doubling; false reserves memory_limit as one region at the first allocation"},
			{Name: "garbage_collection", Default: "false", Doc: "on OOM, return regions with no chunk in use to the device and retry"},
			{Name: "fragmentation_fraction", Default: "0", Doc: "split a chunk whose waste would reach this fraction of memory_limit (0: 128 MiB)"},
			{Name: "coalesce_regions", Default: "false", Doc: "merge a new region with an adjacent one (VMM-style sub-allocators)"},
			{Name: "alignment", Default: "256", Doc: "power-of-two alignment of every offset; above 256 BFC splits off a padding chunk"},
		},
		New: newBFCFromArgs,
	})
}

// BFCOptions are TensorFlow's BFCAllocator options, under its names.
type BFCOptions struct {
	// MemoryLimit is total_memory: the most bytes BFC may hold from the device.
	MemoryLimit int64
	// AllowGrowth grows regions from 2 MiB by doubling; otherwise the first
	// region is the whole limit.
	AllowGrowth bool
	// GarbageCollection frees regions with nothing in use when an
	// allocation would otherwise fail, then retries.
	GarbageCollection bool
	// FragmentationFraction sets the split threshold to this fraction of
	// MemoryLimit; 0 keeps TensorFlow's 128 MiB.
	FragmentationFraction float64
	// CoalesceRegions models a sub-allocator with SupportsCoalescing().
	CoalesceRegions bool
	// Alignment of every returned offset (a power of two; <= 256 is free).
	Alignment int64
}

func newBFCFromArgs(args *workloads.Args) (Allocator, error) {
	o := BFCOptions{
		MemoryLimit:           args.Bytes("memory_limit", bfcDefaultLimit),
		AllowGrowth:           args.Bool("allow_growth", true),
		GarbageCollection:     args.Bool("garbage_collection", false),
		FragmentationFraction: args.Float("fragmentation_fraction", 0),
		CoalesceRegions:       args.Bool("coalesce_regions", false),
		Alignment:             args.Bytes("alignment", bfcMinAlloc),
	}
	return NewBFC(o)
}

// NewBFC returns a BFC allocator with no memory reserved yet.
func NewBFC(o BFCOptions) (*BFC, error) {
	switch {
	case o.MemoryLimit < bfcMinAlloc || o.MemoryLimit > bfcMaxLimit:
		return nil, workloads.Usagef("bfc: memory_limit=%d: want %d to %d bytes", o.MemoryLimit, bfcMinAlloc, int64(bfcMaxLimit))
	case o.FragmentationFraction < 0:
		return nil, workloads.Usagef("bfc: fragmentation_fraction=%g: want >= 0", o.FragmentationFraction)
	case o.Alignment <= 0 || o.Alignment&(o.Alignment-1) != 0:
		return nil, workloads.Usagef("bfc: alignment=%d: want a power of two", o.Alignment)
	}
	b := &BFC{opt: o, byAddr: addrTable{grain: 8}} // chunks start at multiples of 256
	b.maxFrag = bfcDefaultFrag
	if frac := o.FragmentationFraction * float64(o.MemoryLimit); o.FragmentationFraction > 0 {
		// A double product truncated to an integer, as in TensorFlow.
		b.maxFrag = int64(frac)
		if frac >= 1<<63 {
			// TensorFlow's int64 conversion overflows here, and it
			// compares the unsigned waste with the threshold made
			// unsigned, which is then 2^63 or more: no waste reaches
			// it, so the threshold never splits. MaxInt64 does the same.
			b.maxFrag = math.MaxInt64
		}
	}
	if o.Alignment <= bfcMinAlloc {
		// Aligned requests need the padding test in set order, which
		// the large set alone provides; classes serve the common case.
		b.classes.init(min(classLimit, o.MemoryLimit+bfcMinAlloc), 8)
	}
	b.Reset()
	return b, nil
}

// bfcChunk is a piece of a region, either wholly in use or wholly free.
// Handles are indexes into BFC.chunks and are recycled LIFO like
// TensorFlow's, so the stale requested size of a recycled chunk matches.
// The requested sizes live apart in BFC.requested, off the hot path.
// The record is 32 bytes, two to a cache line.
type bfcChunk struct {
	addr, size int64
	prev, next int32 // physical neighbours in the region
	fnext      int32 // next free chunk of the same size class, by address
	bin        int8  // bin holding this free chunk, or bfcNone
	inUse      bool
}

// bfcRegion is one AllocationRegion; first is its lowest chunk, which
// never changes (merges keep the lower handle).
type bfcRegion struct {
	addr, size int64
	first      int32
}

// BFC is TensorFlow's best-fit-with-coalescing allocator.
//
// The rules are TensorFlow's; the indexes are chosen for speed. Free
// chunks below classLimit sit in exact size classes found by bitmap scans
// (best fit is the first non-empty class at or above the request, ties by
// address within it: a list, or a heap for a class with many chunks);
// larger ones sit in a small B-tree ordered by (size, address). An
// address table holds every chunk, so Free finds its chunk with one probe
// and Alloc touches no table unless it splits.
type BFC struct {
	opt     BFCOptions
	maxFrag int64
	curr    int64 // curr_region_allocation_bytes_

	chunks    []bfcChunk
	requested []int64             // per handle: the last request the chunk served
	unused    int32               // head of the recycled-handle list (linked by next)
	bins      [bfcNumBins]counter // TensorFlow's bins, as counts
	nonEmpty  uint32              // bit b set when bins[b] holds a chunk
	classes   sizeClasses         // free chunks below classLimit bytes (alignment <= 256)
	large     freeSet             // the other free chunks
	regions   []bfcRegion
	byAddr    addrTable // start address -> handle of every chunk
	live      counter   // in-use chunks
	dev       device

	inUse, peakInUse, pool, peakPool, largestAlloc int64
	numAllocs, ooms                                int64
}

// Reset returns the allocator to its freshly built state, keeping the
// memory its tables have grown, so repeated replays run warm.
func (b *BFC) Reset() {
	if b.opt.AllowGrowth {
		b.curr = roundBFC(min(b.opt.MemoryLimit, 2<<20))
	} else {
		b.curr = roundBFC(b.opt.MemoryLimit)
	}
	b.classes.clear(b.chunks)
	b.chunks = b.chunks[:0]
	b.requested = b.requested[:0]
	b.unused = bfcNone
	b.large.clear()
	b.bins = [bfcNumBins]counter{}
	b.nonEmpty = 0
	b.regions = b.regions[:0]
	b.byAddr.clear()
	b.live.n = 0
	b.dev.reset()
	b.inUse, b.peakInUse, b.pool, b.peakPool, b.largestAlloc = 0, 0, 0, 0, 0
	b.numAllocs, b.ooms = 0, 0
}

func roundBFC(n int64) int64 { return (n + bfcMinAlloc - 1) &^ (bfcMinAlloc - 1) }

// binFor is BinNumForSize: floor(log2(size/256)), capped at the last bin.
func binFor(size int64) int {
	b := bits.Len64(uint64(size>>8)) - 1
	if b < 0 {
		return 0
	}
	return min(b, bfcNumBins-1)
}

// Alloc serves size bytes (rounded up to 256) by best fit.
func (b *BFC) Alloc(size int64) (Block, error) {
	if size <= 0 {
		return Block{}, fmt.Errorf("bfc: allocation of %d bytes: want > 0", size)
	}
	if size > b.opt.MemoryLimit {
		// No rule can serve it, and garbage collection would not run:
		// TensorFlow's outcome, without rounding past int64.
		b.ooms++
		return Block{}, fmt.Errorf("bfc: %d bytes exceed memory_limit %d: %w", size, b.opt.MemoryLimit, ErrOOM)
	}
	rounded := roundBFC(size)
	h := b.find(rounded)
	if h == bfcNone && b.extend(rounded) {
		h = b.find(rounded)
	}
	if h == bfcNone && b.collectFreeRegions(rounded) && b.extend(rounded) {
		h = b.find(rounded)
	}
	if h == bfcNone {
		b.ooms++
		return Block{}, fmt.Errorf("bfc: %d bytes (rounded %d), %d of %d reserved, largest free chunk %d: %w",
			size, rounded, b.pool, b.opt.MemoryLimit, b.largestFree(), ErrOOM)
	}
	h = b.carve(h, rounded)
	c := &b.chunks[h]
	c.inUse = true
	b.requested[h] = size
	b.live.n++
	b.numAllocs++
	b.inUse += c.size
	b.peakInUse = max(b.peakInUse, b.inUse)
	b.largestAlloc = max(b.largestAlloc, c.size)
	return Block{Offset: c.addr, Size: c.size}, nil
}

// Alignment returns the alignment of every offset: 256, or more if asked.
func (b *BFC) Alignment() int64 { return max(b.opt.Alignment, bfcMinAlloc) }

// padFor is the padding chunk split off below an allocation for alignments
// above 256 (rounded to 256 so it can be a chunk of its own).
func (b *BFC) padFor(addr int64) int64 {
	a := b.opt.Alignment
	if a <= bfcMinAlloc {
		return 0
	}
	return roundBFC((addr+a-1)&^(a-1) - addr)
}

// find takes out of the free index the chunk best fit for rounded:
// the smallest with size >= rounded (+ alignment padding), lowest address
// first; bfcNone if there is none.
func (b *BFC) find(rounded int64) int32 {
	if b.opt.Alignment > bfcMinAlloc {
		h := b.large.scanFrom(rounded, func(e fentry) bool { return e.size >= rounded+b.padFor(e.addr) })
		if h != bfcNone {
			b.removeFree(h)
		}
		return h
	}
	// Best fit is the lowest chunk of the first non-empty class at or
	// above rounded; with no such class, the large set's first fit is.
	h := b.classes.first(rounded)
	if h == bfcNone {
		bi, i, ok := b.large.lowerBound(rounded)
		if !ok {
			return bfcNone
		}
		h = b.large.blocks[bi][i].h
	}
	b.removeFree(h)
	return h
}

// carve turns free chunk h (out of its bin) into the chunk to hand out:
// alignment padding is split off first, then the remainder is split when
// it is at least twice the request or would waste maxFrag or more.
func (b *BFC) carve(h int32, rounded int64) int32 {
	if pad := b.padFor(b.chunks[h].addr); pad > 0 {
		b.split(h, pad)
		aligned := b.chunks[h].next
		b.removeFree(aligned)
		b.insertFree(h)
		h = aligned
	}
	if s := b.chunks[h].size; s >= 2*rounded || s-rounded >= b.maxFrag {
		b.split(h, rounded)
	}
	return h
}

// newChunk pops a recycled handle or appends a fresh chunk.
func (b *BFC) newChunk() int32 {
	if h := b.unused; h != bfcNone {
		b.unused = b.chunks[h].next
		return h
	}
	b.chunks = append(b.chunks, bfcChunk{})
	b.requested = append(b.requested, 0)
	return int32(len(b.chunks) - 1)
}

// deleteChunk recycles h; its requested size stays, as in TensorFlow.
func (b *BFC) deleteChunk(h int32) {
	c := &b.chunks[h]
	c.inUse = false
	c.bin = bfcNone
	c.next = b.unused
	b.unused = h
}

// split keeps the low n bytes in h and frees the rest as a new chunk.
func (b *BFC) split(h int32, n int64) {
	nh := b.newChunk()
	c, nc := &b.chunks[h], &b.chunks[nh]
	nc.addr = c.addr + n
	nc.size = c.size - n
	c.size = n
	nc.inUse = false
	nc.prev, nc.next = h, c.next
	if c.next != bfcNone {
		b.chunks[c.next].prev = nh
	}
	c.next = nh
	if nc.size > 0 {
		b.byAddr.put(nc.addr, nh)
	}
	b.insertFree(nh)
}

// merge absorbs h2, the free chunk right after h1, into h1.
func (b *BFC) merge(h1, h2 int32) {
	c1, c2 := &b.chunks[h1], &b.chunks[h2]
	c1.next = c2.next
	if c2.next != bfcNone {
		b.chunks[c2.next].prev = h1
	}
	if c2.size > 0 {
		b.byAddr.del(c2.addr, b.chunks)
		if c1.size == 0 {
			b.byAddr.put(c1.addr, h1)
		}
	}
	c1.size += c2.size
	b.deleteChunk(h2)
}

// coalesce merges free h with a free next, then into a free prev, and
// returns the surviving handle (not yet in a bin).
func (b *BFC) coalesce(h int32) int32 {
	if n := b.chunks[h].next; n != bfcNone && !b.chunks[n].inUse {
		b.removeFree(n)
		b.merge(h, n)
	}
	if p := b.chunks[h].prev; p != bfcNone && !b.chunks[p].inUse {
		b.removeFree(p)
		b.merge(p, h)
		h = p
	}
	return h
}

func (b *BFC) insertFree(h int32) {
	c := &b.chunks[h]
	bn := binFor(c.size)
	c.bin = int8(bn)
	b.bins[bn].n++
	b.nonEmpty |= 1 << bn
	if !b.classes.insert(b.chunks, h) {
		b.large.insert(fentry{size: c.size, addr: c.addr, h: h})
	}
}

func (b *BFC) removeFree(h int32) {
	c := &b.chunks[h]
	bn := c.bin
	c.bin = bfcNone
	if b.bins[bn].n--; b.bins[bn].n == 0 {
		b.nonEmpty &^= 1 << bn
	}
	if !b.classes.remove(b.chunks, h) {
		b.large.remove(c.size, c.addr)
	}
}

// Free releases the chunk starting at offset and coalesces it.
func (b *BFC) Free(offset int64) error {
	h, ok := b.byAddr.get(offset, b.chunks)
	if !ok || !b.chunks[h].inUse {
		return fmt.Errorf("bfc: free of offset %d: %w", offset, ErrBadFree)
	}
	c := &b.chunks[h]
	c.inUse = false
	b.live.n--
	b.inUse -= c.size
	b.insertFree(b.coalesce(h))
	return nil
}

// extend obtains a new region big enough for rounded, if the limit allows.
func (b *BFC) extend(rounded int64) bool {
	avail := (b.opt.MemoryLimit - b.pool) &^ (bfcMinAlloc - 1)
	if rounded > avail {
		return false
	}
	increased := false
	for rounded > b.curr {
		b.curr *= 2
		increased = true
	}
	bytes := min(b.curr, avail)
	addr := b.dev.alloc(bytes)
	// Guarded against overflow, which TensorFlow's size_t would wrap.
	if !increased && b.curr <= math.MaxInt64/2 {
		b.curr *= 2
	}
	b.pool += bytes
	b.peakPool = max(b.peakPool, b.pool)

	h := b.newChunk()
	b.chunks[h] = bfcChunk{addr: addr, size: bytes, prev: bfcNone, next: bfcNone, bin: bfcNone}
	b.byAddr.put(addr, h)
	// Regions are kept sorted by address; i is where this one goes.
	i := 0
	for i < len(b.regions) && b.regions[i].addr < addr {
		i++
	}
	if b.opt.CoalesceRegions && i > 0 && b.regions[i-1].addr+b.regions[i-1].size == addr {
		r := &b.regions[i-1]
		r.size += bytes
		last := r.first
		for b.chunks[last].next != bfcNone {
			last = b.chunks[last].next
		}
		b.chunks[last].next = h
		b.chunks[h].prev = last
	} else {
		b.regions = append(b.regions, bfcRegion{})
		copy(b.regions[i+1:], b.regions[i:])
		b.regions[i] = bfcRegion{addr: addr, size: bytes, first: h}
	}
	b.insertFree(b.coalesce(h))
	return true
}

// collectFreeRegions is garbage collection: when it could help, every
// region with no chunk in use goes back to the device.
func (b *BFC) collectFreeRegions(rounded int64) bool {
	if !b.opt.GarbageCollection {
		return false
	}
	var total int64
	idle := make([]bool, len(b.regions))
	for i, r := range b.regions {
		idle[i] = true
		for h := r.first; h != bfcNone; h = b.chunks[h].next {
			if b.chunks[h].inUse {
				idle[i] = false
				break
			}
		}
		if idle[i] {
			total += r.size
		}
	}
	if total == 0 || rounded > b.opt.MemoryLimit-b.pool+total {
		return false
	}
	kept := b.regions[:0]
	for i, r := range b.regions {
		if !idle[i] {
			kept = append(kept, r)
			continue
		}
		for h := r.first; h != bfcNone; {
			next := b.chunks[h].next
			if b.chunks[h].bin != bfcNone {
				b.removeFree(h)
			}
			if b.chunks[h].size > 0 {
				b.byAddr.del(b.chunks[h].addr, b.chunks)
			}
			b.deleteChunk(h)
			h = next
		}
		b.dev.free(r.addr, r.size)
		b.pool -= r.size
	}
	b.regions = kept
	return true
}

func (b *BFC) largestFree() int64 {
	var n int64
	if b.large.n > 0 {
		n = b.large.last().size
	}
	return max(n, b.classes.largest())
}

// Stats returns BFC's counters: InUse counts chunk bytes, Reserved is
// pool_bytes.
func (b *BFC) Stats() Stats {
	return Stats{
		InUse: b.inUse, PeakInUse: b.peakInUse,
		Reserved: b.pool, PeakReserved: b.peakPool,
		LargestFreeChunk: b.largestFree(),
		NumAllocs:        b.numAllocs, OOMs: b.ooms,
	}
}

// Fragmentation is BFC's GetFragmentation: the share of the free pool
// outside the largest free chunk. It is NaN when nothing is free.
func (b *BFC) Fragmentation() float64 {
	return BFCFragmentation(b.Stats())
}

// BFCFragmentation computes BFC's fragmentation metric,
// (reserved - in use - largest free) / (reserved - in use), from any
// allocator's stats; NaN when the pool is fully in use (or empty).
func BFCFragmentation(s Stats) float64 {
	avail := s.Reserved - s.InUse
	if avail == 0 {
		return math.NaN()
	}
	return float64(avail-s.LargestFreeChunk) / float64(avail)
}

// counter counts chunks: the free ones in one of TensorFlow's bins, or
// the in-use ones. Bins partition the size axis, so the search itself runs
// on size classes and the large set; the counts keep TensorFlow's bin
// bookkeeping visible.
type counter struct{ n int }

// Pools implements PoolReporter: TensorFlow's 21 bins (bin k holds chunks
// of 256<<k bytes up to the next bin's), counting every chunk of every
// region, in use or free.
func (b *BFC) Pools() []PoolBytes {
	ps := make([]PoolBytes, bfcNumBins)
	for k := range ps {
		ps[k].Name = fmt.Sprintf("bin %d", k)
	}
	for _, r := range b.regions {
		for h := r.first; h != bfcNone; h = b.chunks[h].next {
			c := &b.chunks[h]
			k := binFor(c.size)
			ps[k].Reserved += c.size
			if c.inUse {
				ps[k].Allocated += c.size
			}
		}
	}
	return ps
}
