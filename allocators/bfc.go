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
	if o.FragmentationFraction > 0 {
		// A double product truncated to an integer, as in TensorFlow.
		b.maxFrag = int64(o.FragmentationFraction * float64(o.MemoryLimit))
	}
	b.Reset()
	return b, nil
}

// bfcChunk is a piece of a region, either wholly in use or wholly free.
// Handles are indexes into BFC.chunks and are recycled LIFO like
// TensorFlow's, so the stale requested size of a recycled chunk matches.
// The requested sizes live apart in BFC.requested, off the hot path.
type bfcChunk struct {
	addr, size int64
	prev, next int32 // physical neighbours in the region
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
type BFC struct {
	opt     BFCOptions
	maxFrag int64
	curr    int64 // curr_region_allocation_bytes_

	chunks    []bfcChunk
	requested []int64 // per handle: the last request the chunk served
	unused    int32   // head of the recycled-handle list (linked by next)
	bins      [bfcNumBins]freeSet
	nonEmpty  uint32 // bit b set when bins[b] holds a chunk
	regions   []bfcRegion
	live      addrTable // start address -> handle of in-use chunks
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
	b.chunks = b.chunks[:0]
	b.requested = b.requested[:0]
	b.unused = bfcNone
	for i := range b.bins {
		b.bins[i].clear()
	}
	b.nonEmpty = 0
	b.regions = b.regions[:0]
	b.live.clear()
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
	b.live.put(c.addr, h)
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

// find removes from its bin and returns the chunk best fit for rounded:
// the smallest with size >= rounded (+ alignment padding), lowest address
// first; bfcNone if there is none.
func (b *BFC) find(rounded int64) int32 {
	first := binFor(rounded)
	if b.opt.Alignment <= bfcMinAlloc {
		// Bins partition the size axis, so best fit is a lower bound in
		// the request's own bin or else the smallest chunk of the next
		// non-empty bin.
		bn := first
		bi, i, ok := b.bins[bn].lowerBound(rounded)
		if !ok {
			rest := b.nonEmpty >> (first + 1) << (first + 1)
			if rest == 0 {
				return bfcNone
			}
			bn, bi, i = bits.TrailingZeros32(rest), 0, 0
		}
		h := b.bins[bn].removeAt(bi, i)
		b.chunks[h].bin = bfcNone
		if b.bins[bn].n == 0 {
			b.nonEmpty &^= 1 << bn
		}
		return h
	}
	for bn := first; bn < bfcNumBins; bn++ {
		if b.nonEmpty&(1<<bn) == 0 {
			continue
		}
		h := b.bins[bn].scanFrom(rounded, func(e fentry) bool { return e.size >= rounded+b.padFor(e.addr) })
		if h != bfcNone {
			b.removeFree(h)
			return h
		}
	}
	return bfcNone
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
	b.insertFree(nh)
}

// merge absorbs h2, the free chunk right after h1, into h1.
func (b *BFC) merge(h1, h2 int32) {
	c1, c2 := &b.chunks[h1], &b.chunks[h2]
	c1.next = c2.next
	if c2.next != bfcNone {
		b.chunks[c2.next].prev = h1
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
	b.bins[bn].insert(fentry{size: c.size, addr: c.addr, h: h})
	b.nonEmpty |= 1 << bn
}

func (b *BFC) removeFree(h int32) {
	c := &b.chunks[h]
	bn := c.bin
	b.bins[bn].remove(c.size, c.addr)
	c.bin = bfcNone
	if b.bins[bn].n == 0 {
		b.nonEmpty &^= 1 << bn
	}
}

// Free releases the chunk starting at offset and coalesces it.
func (b *BFC) Free(offset int64) error {
	h, ok := b.live.take(offset)
	if !ok {
		return fmt.Errorf("bfc: free of offset %d: %w", offset, ErrBadFree)
	}
	c := &b.chunks[h]
	c.inUse = false
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
	if b.nonEmpty == 0 {
		return 0
	}
	return b.bins[bits.Len32(b.nonEmpty)-1].last().size
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

// fentry is a free chunk in a bin, ordered by (size, addr).
type fentry struct {
	size, addr int64
	h          int32
}

func (e fentry) less(size, addr int64) bool {
	return e.size < size || e.size == size && e.addr < addr
}

// freeSet is an ordered set of free chunks: a list of sorted blocks of at
// most setBlock entries (a two-level B-tree), so insert and remove move at
// most one small block and lookups are two binary searches.
type freeSet struct {
	blocks [][]fentry
	spare  [][]fentry // emptied blocks kept for reuse
	n      int
}

const setBlock = 32

func (s *freeSet) clear() {
	for _, bl := range s.blocks {
		s.spare = append(s.spare, bl[:0])
	}
	s.blocks = s.blocks[:0]
	s.n = 0
}

// blockFor returns the first block whose last entry is not less than
// (size, addr), or len(blocks).
func (s *freeSet) blockFor(size, addr int64) int {
	lo, hi := 0, len(s.blocks)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		bl := s.blocks[m]
		if bl[len(bl)-1].less(size, addr) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// searchBlock returns the index of the first entry not less than (size,
// addr): a binary search down to a few entries, then a scan, which
// mispredicts less on small blocks.
func searchBlock(bl []fentry, size, addr int64) int {
	lo, hi := 0, len(bl)
	for hi-lo > 8 {
		m := int(uint(lo+hi) >> 1)
		if bl[m].less(size, addr) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for lo < hi && bl[lo].less(size, addr) {
		lo++
	}
	return lo
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
		return
	}
	bi := s.blockFor(e.size, e.addr)
	if bi == len(s.blocks) {
		bi--
	}
	bl := s.blocks[bi]
	i := searchBlock(bl, e.size, e.addr)
	bl = append(bl, fentry{})
	copy(bl[i+1:], bl[i:])
	bl[i] = e
	if len(bl) <= setBlock {
		s.blocks[bi] = bl
		return
	}
	// Split a full block in two halves.
	hi := append(s.newBlock(), bl[setBlock/2:]...)
	s.blocks[bi] = bl[:setBlock/2]
	s.blocks = append(s.blocks, nil)
	copy(s.blocks[bi+2:], s.blocks[bi+1:])
	s.blocks[bi+1] = hi
}

func (s *freeSet) remove(size, addr int64) {
	bi := s.blockFor(size, addr)
	s.removeAt(bi, searchBlock(s.blocks[bi], size, addr))
}

// removeAt removes entry i of block bi and returns its handle.
func (s *freeSet) removeAt(bi, i int) int32 {
	bl := s.blocks[bi]
	h := bl[i].h
	copy(bl[i:], bl[i+1:])
	bl = bl[:len(bl)-1]
	s.n--
	if len(bl) > 0 {
		s.blocks[bi] = bl
		return h
	}
	s.spare = append(s.spare, bl)
	copy(s.blocks[bi:], s.blocks[bi+1:])
	s.blocks[len(s.blocks)-1] = nil
	s.blocks = s.blocks[:len(s.blocks)-1]
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

func (s *freeSet) last() fentry {
	bl := s.blocks[len(s.blocks)-1]
	return bl[len(bl)-1]
}

// addrTable maps the start address of each in-use chunk to its handle:
// open addressing with linear probing and backward-shift deletion, so Free
// finds its chunk without a per-256-byte index over the whole region.
type addrTable struct {
	slots []addrSlot
	n     int
	shift uint8
}

// addrSlot keeps key and value on one cache line; key -1 marks it empty.
type addrSlot struct {
	key int64
	val int32
}

func (t *addrTable) clear() {
	for i := range t.slots {
		t.slots[i].key = -1
	}
	t.n = 0
}

func (t *addrTable) home(k int64) int {
	return int((uint64(k>>8) * 0x9E3779B97F4A7C15) >> t.shift)
}

func (t *addrTable) grow() {
	old := t.slots
	size := max(64, 2*len(old))
	t.slots = make([]addrSlot, size)
	t.shift = uint8(64 - bits.TrailingZeros(uint(size)))
	t.n = 0
	for i := range t.slots {
		t.slots[i].key = -1
	}
	for _, sl := range old {
		if sl.key >= 0 {
			t.put(sl.key, sl.val)
		}
	}
}

// put adds k, which must not be in the table.
func (t *addrTable) put(k int64, v int32) {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	mask := len(t.slots) - 1
	i := t.home(k)
	for t.slots[i].key >= 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = addrSlot{k, v}
	t.n++
}

func (t *addrTable) get(k int64) (int32, bool) {
	if i := t.find(k); i >= 0 {
		return t.slots[i].val, true
	}
	return 0, false
}

func (t *addrTable) find(k int64) int {
	if len(t.slots) == 0 || k < 0 {
		return -1
	}
	mask := len(t.slots) - 1
	for i := t.home(k); ; i = (i + 1) & mask {
		switch t.slots[i].key {
		case k:
			return i
		case -1:
			return -1
		}
	}
}

// take removes k and returns its value.
func (t *addrTable) take(k int64) (int32, bool) {
	i := t.find(k)
	if i < 0 {
		return 0, false
	}
	v := t.slots[i].val
	mask := len(t.slots) - 1
	// Shift later entries of the probe run back into the hole.
	for j := (i + 1) & mask; t.slots[j].key >= 0; j = (j + 1) & mask {
		if h := t.home(t.slots[j].key); (j-h)&mask >= (j-i)&mask {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i].key = -1
	t.n--
	return v, true
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
