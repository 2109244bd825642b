package allocators

import (
	"fmt"
	"math"
	"math/bits"

	"membench/workloads"
)

// This file ports TensorFlow/XLA's BFC allocator
// (xla/tsl/framework/bfc_allocator.cc, non-partitioned mode) rule by rule,
// as stated in testdata/bfc/RULES.md, together with the simulated device the
// reference replays ran on. The golden test checks every reference replay.

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
	b := &BFC{opt: o}
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

const (
	// classLimit: free chunks smaller than this sit in exact size classes.
	classLimit = 16 << 20
	// classList is the most chunks a class lists before it moves them
	// into a heap, which bounds every list walk.
	classList = 8
)

// classSlot is one exact size class: a list of free chunks by address,
// linked through bfcChunk.fnext, or, once it outgrew the list, a binary
// heap of its chunks by address, where fnext is each chunk's position.
// The zero value is an empty class, so the slot array needs no setup. The
// bitmaps mark the classes with n != 0.
type classSlot struct {
	head int32 // lowest-address chunk when n > 0; the heap's id when n < 0
	n    int32 // chunks listed (> 0), or minus the chunks in the heap (< 0)
}

// classEnt is a chunk in a class's heap.
type classEnt struct {
	addr int64
	h    int32
}

// sizeClasses holds free chunks by exact size (size >> shift: one class
// per 256 bytes, or per 512 for allocators whose sizes are multiples of
// 512) with a three-level bitmap of non-empty classes, so best fit is a
// few bit scans and the head of a list or heap: TLSF's idea. The bitmap
// has at most 64*64*64 classes, so classLimit <= 64 MiB.
// A class holding many chunks of one size (a caching allocator's whole
// free segments) keeps them in a heap, whose operations stay logarithmic.
type sizeClasses struct {
	slots []classSlot  // nil when classes are off
	heaps [][]classEnt // by id: the heaps of classes with n < 0
	spare []int32      // heap ids not in use
	l0    []uint64     // bit k: class k holds a chunk
	l1    []uint64     // bit i: l0[i] != 0
	l2    uint64       // bit j: l1[j] != 0
	shift uint8        // log2 of the bytes per class: 8 or 9
}

// init sets up classes of 1<<shift bytes for every chunk size below
// limit. Every chunk size must be a multiple of 1<<shift.
func (sc *sizeClasses) init(limit int64, shift uint8) {
	sc.shift = shift
	n := int((limit+(1<<shift)-1)>>shift+63) &^ 63
	sc.slots = make([]classSlot, n)
	sc.l0 = make([]uint64, n/64)
	sc.l1 = make([]uint64, (len(sc.l0)+63)/64)
}

func (sc *sizeClasses) clear(chunks []bfcChunk) {
	if sc.slots == nil {
		return
	}
	for i := range chunks {
		if k := chunks[i].size >> (sc.shift & 63); chunks[i].bin != bfcNone && k < int64(len(sc.slots)) {
			sc.slots[k] = classSlot{}
		}
	}
	clear(sc.l0)
	clear(sc.l1)
	sc.l2 = 0
	sc.spare = sc.spare[:0]
	for id := range sc.heaps {
		sc.heaps[id] = sc.heaps[id][:0]
		sc.spare = append(sc.spare, int32(id))
	}
}

func (sc *sizeClasses) mark(k int64) {
	w := &sc.l0[k>>6]
	if *w == 0 {
		sc.l1[k>>12] |= 1 << ((k >> 6) & 63)
		sc.l2 |= 1 << (k >> 12)
	}
	*w |= 1 << (k & 63)
}

func (sc *sizeClasses) unmark(k int64) {
	if sc.l0[k>>6] &^= 1 << (k & 63); sc.l0[k>>6] == 0 {
		if sc.l1[k>>12] &^= 1 << ((k >> 6) & 63); sc.l1[k>>12] == 0 {
			sc.l2 &^= 1 << (k >> 12)
		}
	}
}

// first returns the lowest-address chunk of the smallest non-empty class
// holding chunks of at least size bytes (a multiple of 1<<shift), or
// bfcNone if there is none.
func (sc *sizeClasses) first(size int64) int32 {
	k := sc.firstClass(size)
	if k < 0 {
		return bfcNone
	}
	s := &sc.slots[k]
	if s.n < 0 {
		return sc.heaps[s.head][0].h
	}
	return s.head
}

// take is first, taking the chunk out of its class.
func (sc *sizeClasses) take(chunks []bfcChunk, size int64) int32 {
	k := sc.firstClass(size)
	if k < 0 {
		return bfcNone
	}
	s := &sc.slots[k]
	if s.n < 0 {
		h := sc.heaps[s.head][0].h
		sc.popAt(chunks, s, k, 0)
		return h
	}
	h := s.head
	s.head = chunks[h].fnext
	if s.n--; s.n == 0 {
		sc.unmark(k)
	}
	return h
}

// firstClass returns the smallest non-empty class holding chunks of at
// least size bytes (a multiple of 1<<shift), or -1 if there is none.
func (sc *sizeClasses) firstClass(size int64) int64 {
	k := size >> (sc.shift & 63)
	if k >= int64(len(sc.slots)) {
		return -1
	}
	w := k >> 6
	m := sc.l0[w] & (^uint64(0) << (k & 63))
	if m == 0 {
		w++
		i := w >> 6
		var m1 uint64
		if i < int64(len(sc.l1)) {
			m1 = sc.l1[i] & (^uint64(0) << (w & 63))
		}
		if m1 == 0 {
			m2 := sc.l2 & (^uint64(0) << (i + 1))
			if i+1 >= 64 || m2 == 0 {
				return -1
			}
			i = int64(bits.TrailingZeros64(m2))
			m1 = sc.l1[i]
		}
		w = i<<6 + int64(bits.TrailingZeros64(m1))
		m = sc.l0[w]
	}
	return w<<6 + int64(bits.TrailingZeros64(m))
}

// largest returns the size of the largest non-empty class, or 0.
func (sc *sizeClasses) largest() int64 {
	if sc.l2 == 0 {
		return 0
	}
	i := 63 - bits.LeadingZeros64(sc.l2)
	w := i<<6 + 63 - bits.LeadingZeros64(sc.l1[i])
	return int64(w<<6+63-bits.LeadingZeros64(sc.l0[w])) << (sc.shift & 63)
}

// insert puts free chunk h in its class and reports whether it did; if
// not, h is too big for the classes and belongs in the large set.
func (sc *sizeClasses) insert(chunks []bfcChunk, h int32) bool {
	c := &chunks[h]
	k := c.size >> (sc.shift & 63)
	if k >= int64(len(sc.slots)) {
		return false
	}
	s := &sc.slots[k]
	switch {
	case s.n == 0:
		sc.mark(k)
		c.fnext = bfcNone
		s.head, s.n = h, 1
		return true
	case s.n == classList:
		sc.toHeap(chunks, s)
		fallthrough
	case s.n < 0:
		sc.push(chunks, s.head, h)
		s.n--
		return true
	}
	p := &s.head
	for *p != bfcNone && chunks[*p].addr < c.addr {
		p = &chunks[*p].fnext
	}
	c.fnext = *p
	*p = h
	s.n++
	return true
}

// insertSparse is insert for tables whose chunks mostly land in empty
// classes (a caching allocator's, which has one table per stream): the
// bitmap, which stays in cache, tells an empty class, whose slot is then
// only written, so a cache miss on it does not stall.
func (sc *sizeClasses) insertSparse(chunks []bfcChunk, h int32) bool {
	k := chunks[h].size >> (sc.shift & 63)
	if k < int64(len(sc.slots)) && sc.l0[k>>6]&(1<<(k&63)) == 0 {
		sc.mark(k)
		chunks[h].fnext = bfcNone
		sc.slots[k] = classSlot{head: h, n: 1}
		return true
	}
	return sc.insert(chunks, h)
}

// remove takes free chunk h out of its class and reports whether it was
// there; if not, it is in the large set.
func (sc *sizeClasses) remove(chunks []bfcChunk, h int32) bool {
	k := chunks[h].size >> (sc.shift & 63)
	if k >= int64(len(sc.slots)) {
		return false
	}
	s := &sc.slots[k]
	if s.n < 0 {
		sc.popAt(chunks, s, k, int(chunks[h].fnext))
		return true
	}
	p := &s.head
	for *p != h {
		p = &chunks[*p].fnext
	}
	*p = chunks[h].fnext
	if s.n--; s.n == 0 {
		sc.unmark(k)
	}
	return true
}

// toHeap moves the list of class s into a heap. The list is in address
// order, which is a heap's order.
func (sc *sizeClasses) toHeap(chunks []bfcChunk, s *classSlot) {
	var id int32
	if n := len(sc.spare); n > 0 {
		id = sc.spare[n-1]
		sc.spare = sc.spare[:n-1]
	} else {
		id = int32(len(sc.heaps))
		sc.heaps = append(sc.heaps, nil)
	}
	hp := sc.heaps[id][:0]
	for x := s.head; x != bfcNone; {
		c := &chunks[x]
		next := c.fnext
		c.fnext = int32(len(hp))
		hp = append(hp, classEnt{addr: c.addr, h: x})
		x = next
	}
	sc.heaps[id] = hp
	s.head, s.n = id, -int32(len(hp))
}

// popAt removes the chunk at position i of the heap of class k (slot s).
func (sc *sizeClasses) popAt(chunks []bfcChunk, s *classSlot, k int64, i int) {
	sc.pop(chunks, s.head, i)
	if s.n++; s.n == 0 {
		sc.unmark(k)
		sc.spare = append(sc.spare, s.head)
	}
}

// push adds chunk h to heap id.
func (sc *sizeClasses) push(chunks []bfcChunk, id, h int32) {
	hp := append(sc.heaps[id], classEnt{addr: chunks[h].addr, h: h})
	sc.heaps[id] = hp
	siftUp(hp, chunks, len(hp)-1)
}

// pop removes the chunk at position i of heap id.
func (sc *sizeClasses) pop(chunks []bfcChunk, id int32, i int) {
	hp := sc.heaps[id]
	last := len(hp) - 1
	if i != last {
		hp[i] = hp[last]
		chunks[hp[i].h].fnext = int32(i)
	}
	hp = hp[:last]
	sc.heaps[id] = hp
	if i < last {
		siftDown(hp, chunks, i)
		siftUp(hp, chunks, i)
	}
}

// siftUp and siftDown restore the order of heap hp around position i,
// keeping every moved chunk's fnext at its position.
func siftUp(hp []classEnt, chunks []bfcChunk, i int) {
	e := hp[i]
	for i > 0 {
		p := (i - 1) / 2
		if hp[p].addr < e.addr {
			break
		}
		hp[i] = hp[p]
		chunks[hp[i].h].fnext = int32(i)
		i = p
	}
	hp[i] = e
	chunks[e.h].fnext = int32(i)
}

func siftDown(hp []classEnt, chunks []bfcChunk, i int) {
	e := hp[i]
	for {
		c := 2*i + 1
		if c >= len(hp) {
			break
		}
		if c+1 < len(hp) && hp[c+1].addr < hp[c].addr {
			c++
		}
		if e.addr < hp[c].addr {
			break
		}
		hp[i] = hp[c]
		chunks[hp[i].h].fnext = int32(i)
		i = c
	}
	hp[i] = e
	chunks[e.h].fnext = int32(i)
}

// fentry is a free chunk in the large set, ordered by (size, addr).
type fentry struct {
	size, addr int64
	h          int32
}

func (e fentry) less(size, addr int64) bool {
	return e.size < size || e.size == size && e.addr < addr
}

// freeSet is an ordered set of free chunks: a list of sorted blocks of at
// most setBlock entries (a two-level B-tree), with the last key of every
// block mirrored in one array so finding a block touches no block. Blocks
// are small enough to scan linearly, which beats a binary search's
// mispredicted branches.
type freeSet struct {
	blocks [][]fentry
	lasts  []fentry   // lasts[i] is the last entry of blocks[i]
	spare  [][]fentry // emptied blocks kept for reuse
	n      int
}

const setBlock = 32

func (s *freeSet) clear() {
	for _, bl := range s.blocks {
		s.spare = append(s.spare, bl[:0])
	}
	s.blocks = s.blocks[:0]
	s.lasts = s.lasts[:0]
	s.n = 0
}

// blockFor returns the first block whose last entry is not less than
// (size, addr), or len(blocks).
func (s *freeSet) blockFor(size, addr int64) int {
	lo, hi := 0, len(s.lasts)
	for hi-lo > 8 {
		m := int(uint(lo+hi) >> 1)
		if s.lasts[m].less(size, addr) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for lo < hi && s.lasts[lo].less(size, addr) {
		lo++
	}
	return lo
}

// searchBlock returns the index of the first entry not less than (size,
// addr).
func searchBlock(bl []fentry, size, addr int64) int {
	i := 0
	for i < len(bl) && bl[i].size < size {
		i++
	}
	for i < len(bl) && bl[i].size == size && bl[i].addr < addr {
		i++
	}
	return i
}

func (s *freeSet) newBlock() []fentry {
	if n := len(s.spare); n > 0 {
		bl := s.spare[n-1]
		s.spare = s.spare[:n-1]
		return bl
	}
	return make([]fentry, 0, setBlock+1)
}

func (s *freeSet) insert(e fentry) {
	s.n++
	if len(s.blocks) == 0 {
		s.blocks = append(s.blocks, append(s.newBlock(), e))
		s.lasts = append(s.lasts, e)
		return
	}
	bi := s.blockFor(e.size, e.addr)
	if bi == len(s.blocks) {
		bi--
	}
	bl := s.blocks[bi]
	i := searchBlock(bl, e.size, e.addr)
	// Shift by hand: blocks are short, and this skips a memmove call.
	bl = bl[:len(bl)+1]
	for j := len(bl) - 1; j > i; j-- {
		bl[j] = bl[j-1]
	}
	bl[i] = e
	if len(bl) <= setBlock {
		s.blocks[bi] = bl
		s.lasts[bi] = bl[len(bl)-1]
		return
	}
	// Split a full block in two halves.
	hi := append(s.newBlock(), bl[setBlock/2:]...)
	lo := bl[:setBlock/2]
	s.blocks[bi] = lo
	s.lasts[bi] = lo[len(lo)-1]
	s.blocks = append(s.blocks, nil)
	copy(s.blocks[bi+2:], s.blocks[bi+1:])
	s.blocks[bi+1] = hi
	s.lasts = append(s.lasts, fentry{})
	copy(s.lasts[bi+2:], s.lasts[bi+1:])
	s.lasts[bi+1] = hi[len(hi)-1]
}

func (s *freeSet) remove(size, addr int64) {
	bi := s.blockFor(size, addr)
	s.removeAt(bi, searchBlock(s.blocks[bi], size, addr))
}

// removeAt removes entry i of block bi and returns its handle.
func (s *freeSet) removeAt(bi, i int) int32 {
	bl := s.blocks[bi]
	h := bl[i].h
	for j := i + 1; j < len(bl); j++ {
		bl[j-1] = bl[j]
	}
	bl = bl[:len(bl)-1]
	s.n--
	if len(bl) > 0 {
		s.blocks[bi] = bl
		s.lasts[bi] = bl[len(bl)-1]
		return h
	}
	s.spare = append(s.spare, bl)
	copy(s.blocks[bi:], s.blocks[bi+1:])
	s.blocks[len(s.blocks)-1] = nil
	s.blocks = s.blocks[:len(s.blocks)-1]
	copy(s.lasts[bi:], s.lasts[bi+1:])
	s.lasts = s.lasts[:len(s.lasts)-1]
	return h
}

// lowerBound returns the position of the first entry with size >= size.
func (s *freeSet) lowerBound(size int64) (bi, i int, ok bool) {
	bi = s.blockFor(size, math.MinInt64)
	if bi == len(s.blocks) {
		return 0, 0, false
	}
	return bi, searchBlock(s.blocks[bi], size, math.MinInt64), true
}

// scanFrom returns the handle of the first entry with size >= size that
// ok accepts, in set order, or bfcNone.
func (s *freeSet) scanFrom(size int64, ok func(fentry) bool) int32 {
	bi := s.blockFor(size, math.MinInt64)
	for ; bi < len(s.blocks); bi++ {
		bl := s.blocks[bi]
		for _, e := range bl[searchBlock(bl, size, math.MinInt64):] {
			if ok(e) {
				return e.h
			}
		}
	}
	return bfcNone
}

func (s *freeSet) last() fentry { return s.lasts[len(s.lasts)-1] }

// addrTable maps the start address of every chunk to its handle: open
// addressing with linear probing and backward-shift deletion, so Free
// finds its chunk without a per-256-byte index over the whole region.
// Free chunks stay in it, so it changes only on splits and merges, not
// on every Alloc and Free. Empty chunks (a split with maxFrag 0 of an
// exact fit) share their successor's address and are left out.
// A slot holds only the handle and the low 32 bits of addr/256 (8 bytes,
// so the table stays cache resident); a tag match is confirmed on the
// chunk itself, which Free reads next anyway.
type addrTable struct {
	slots []addrSlot
	n     int
	shift uint8
}

type addrSlot struct {
	tag uint32
	h   int32 // bfcNone marks an empty slot
}

func (t *addrTable) clear() {
	for i := range t.slots {
		t.slots[i].h = bfcNone
	}
	t.n = 0
}

func (t *addrTable) home(tag uint32) int {
	return int((tag * 0x9E3779B1) >> (t.shift & 31)) // the mask spares a shift-range check
}

func (t *addrTable) grow() {
	old := t.slots
	size := max(64, 2*len(old))
	t.slots = make([]addrSlot, size)
	t.shift = uint8(32 - bits.TrailingZeros(uint(size)))
	for i := range t.slots {
		t.slots[i].h = bfcNone
	}
	mask := size - 1
	for _, sl := range old {
		if sl.h != bfcNone {
			i := t.home(sl.tag)
			for t.slots[i].h != bfcNone {
				i = (i + 1) & mask
			}
			t.slots[i] = sl
		}
	}
}

// put adds the chunk h starting at addr, which must not be in the table.
func (t *addrTable) put(addr int64, h int32) {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	tag := uint32(addr >> 8)
	mask := len(t.slots) - 1
	i := t.home(tag)
	for t.slots[i].h != bfcNone {
		i = (i + 1) & mask
	}
	t.slots[i] = addrSlot{tag, h}
	t.n++
}

// find returns the slot of the chunk starting at addr, or -1.
func (t *addrTable) find(addr int64, chunks []bfcChunk) int {
	if len(t.slots) == 0 || addr < 0 || addr&(bfcMinAlloc-1) != 0 {
		return -1
	}
	tag := uint32(addr >> 8)
	mask := len(t.slots) - 1
	for i := t.home(tag); ; i = (i + 1) & mask {
		sl := t.slots[i]
		if sl.h == bfcNone {
			return -1
		}
		if sl.tag == tag && chunks[sl.h].addr == addr {
			return i
		}
	}
}

// get returns the handle of the chunk starting at addr.
func (t *addrTable) get(addr int64, chunks []bfcChunk) (int32, bool) {
	i := t.find(addr, chunks)
	if i < 0 {
		return 0, false
	}
	return t.slots[i].h, true
}

// del removes the chunk starting at addr, which must be in the table.
func (t *addrTable) del(addr int64, chunks []bfcChunk) {
	i := t.find(addr, chunks)
	mask := len(t.slots) - 1
	// Shift later entries of the probe run back into the hole.
	for j := (i + 1) & mask; t.slots[j].h != bfcNone; j = (j + 1) & mask {
		if k := t.home(t.slots[j].tag); (j-k)&mask >= (j-i)&mask {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i].h = bfcNone
	t.n--
}

// device is the simulated device the reference replays ran on: one
// unbounded address range handed out first fit by address, where freed
// ranges merge and are reused.
type device struct {
	spans []span     // free ranges by address; the last one is unbounded
	subs  []subAlloc // every allocation ever made, in call order
}

type span struct{ start, end int64 }

// subAlloc is one SubAllocator::Alloc: a subregion of the fixtures.
type subAlloc struct {
	addr, size int64
	live       bool
}

func (d *device) reset() {
	d.spans = append(d.spans[:0], span{0, math.MaxInt64})
	d.subs = d.subs[:0]
}

func (d *device) alloc(n int64) int64 {
	for i := range d.spans {
		s := &d.spans[i]
		if s.end-s.start < n {
			continue
		}
		addr := s.start
		s.start += n
		if s.start == s.end {
			d.spans = append(d.spans[:i], d.spans[i+1:]...)
		}
		d.subs = append(d.subs, subAlloc{addr: addr, size: n, live: true})
		return addr
	}
	panic("bfc: simulated device address space exhausted")
}

func (d *device) free(addr, n int64) {
	end := addr + n
	for i := range d.subs {
		if s := &d.subs[i]; s.live && s.addr >= addr && s.addr < end {
			s.live = false
		}
	}
	i := 0
	for i < len(d.spans) && d.spans[i].start < addr {
		i++
	}
	d.spans = append(d.spans, span{})
	copy(d.spans[i+1:], d.spans[i:])
	d.spans[i] = span{addr, end}
	if i+1 < len(d.spans) && d.spans[i+1].start == end {
		d.spans[i].end = d.spans[i+1].end
		d.spans = append(d.spans[:i+1], d.spans[i+2:]...)
	}
	if i > 0 && d.spans[i-1].end == addr {
		d.spans[i-1].end = d.spans[i].end
		d.spans = append(d.spans[:i], d.spans[i+1:]...)
	}
}

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
