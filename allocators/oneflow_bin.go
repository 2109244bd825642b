package allocators

import (
	"math/bits"

	"membench/workloads"
)

// oneflowBin simulates OneFlow's eager device allocator, vm::BinAllocator
// (oneflow/core/vm/bin_allocator.h, read at Oneflow-Inc/oneflow commit
// 25c8978c1c8b1371ef6aa4187dae4495bd233c35), with one BinAllocator per
// stream as OneFlow's EpStreamPolicy builds them, all over one device. The
// rules, in our words:
//
//   - Rounding. A request is rounded up to a multiple of the alignment
//     (512 bytes by default, ep::kMaxAlignmentRequirement; a power of two
//     of at most 512).
//   - Bins. Free pieces sit in 20 bins, bin k holding the pieces of at
//     least 512<<k bytes and less than twice that, except that bin 0 also
//     holds the pieces under 512 bytes (there are some when the alignment
//     is below 512) and the last bin, from 256 MiB, everything larger;
//     each bin is ordered by (size, address). A request searches the bins
//     from its own size's up and takes the first piece at least as large:
//     this is the smallest free piece that fits, ties to the lowest
//     address.
//   - Splitting. The piece is split, its front handed out and the rest
//     returned to the bins as a free piece, when it is at least twice the
//     rounded size or the rest is at least 128 MiB (kPieceSplitThreshold).
//   - Blocks. When no piece fits, a block is obtained from the device:
//     2 MiB for a rounded size below 1 MiB, 20 MiB below 10 MiB, else the
//     rounded size rounded up to 2 MiB; then the search runs again. A
//     refused block is an out-of-memory error.
//   - Merging. A freed piece merges with its free neighbours in the same
//     block (the next, then the previous) before it returns to the bins.
//   - Shrink. Blocks that are wholly free go back to the device. OneFlow
//     shrinks every stream's allocator (VirtualMachine::ShrinkAllMem) only
//     when asked to: from empty_cache, from NNGraph::InitRuntime before a
//     graph's runtime starts, and after a tensor's offload or load; never
//     on a failed allocation. None of those is in a replay, so here it
//     runs only with shrink_on_oom=true, membench's own option: on a
//     refused block, every stream's allocator shrinks and the block is
//     asked for once more. A request over 2^52 bytes (maxRequest) is
//     refused as a block no device holds: it shrinks too, and fails.
//   - Streams. Each stream has its own bins and blocks; a piece is reused
//     only by its own stream. A free reaches the allocator when OneFlow's
//     release instruction would run: once every stream that used the
//     tensor has finished with it (Replay delivers frees at completion).
//
// The device is torch-caching's: a simulated address space handing out
// blocks first fit by address under memory_limit. Reserved counts the
// bytes of the blocks held.
type oneflowBin struct {
	align       int64
	limit       int64 // 0: unlimited
	shrinkOnOOM bool
	s0          *obStream         // stream 0, the usual one
	small       []*obStream       // streams 1 to 63, by number (nil: unused)
	streams     map[int]*obStream // the others, every one but stream 0
	// pieces holds every piece by handle, as BFC holds its chunks (addr,
	// size, neighbours prev and next; bin 0 for a free piece, bfcNone for
	// one handed out), so that the streams' size classes index them.
	pieces []bfcChunk
	owner  []*obStream // by handle: the stream whose block holds the piece
	byOff  addrTable   // offset -> handle of every piece (ptr2piece_)
	spare  int32       // recycled handles, linked by next; obNone for none
	device fitArena
	stats  statTracker
}

// The constants of bin_allocator.h, in bytes.
const (
	obBinBase        = 512       // the size of bin 0, kCudaMemAllocAlignSize
	obSplitThreshold = 128 << 20 // kPieceSplitThreshold
	obSmallBlock     = 2 << 20   // the block for sizes below 1 MiB
	obLargeBlock     = 20 << 20  // the block for sizes below 10 MiB
	obRoundBlock     = 2 << 20   // the rounding of larger blocks
	obNone           = bfcNone
	// obClassStreams is how many streams get size classes (they take up to
	// 0.5 MiB each); the others keep every free piece in the ordered set.
	obClassStreams = 16
)

// obStream is one stream's BinAllocator: its free pieces in the order the
// bins are searched, (size, address), kept as BFC keeps its free chunks:
// exact size classes over a bitmap (when the alignment is at least 256
// bytes, so that a class holds one size) beside an ordered set for the
// pieces no class holds. The smallest piece that fits, lowest address
// first, is the head of the first non-empty class from the request's, or
// the set's first piece from there.
type obStream struct {
	classes sizeClasses
	free    freeSet
}

func init() {
	Register(Info{
		Name: "oneflow-bin",
		Doc: "OneFlow's vm::BinAllocator, one per stream: 512-byte rounding, smallest free piece by (size, address) " +
			"from 20 power-of-two bins, split when the piece is twice the size or 128 MiB would remain, blocks of " +
			"2 MiB (< 1 MiB), 20 MiB (< 10 MiB) or the size rounded to 2 MiB, neighbours merged on free",
		Params: []workloads.ParamDoc{
			memoryLimitDoc,
			{Name: "alignment", Default: "512", Doc: "request rounding and offset alignment (a power of two, at most 512)"},
			{Name: "shrink_on_oom", Default: "false", Doc: "on a refused block, give every wholly free block back and retry once (not OneFlow's rule: it shrinks only when asked, " +
				"from empty_cache, nn.Graph runtime start and tensor offload/load)"},
		},
		New: newOneflowBin,
	})
}

func newOneflowBin(args *workloads.Args) (Allocator, error) {
	a := &oneflowBin{
		align:       args.Int64("alignment", obBinBase),
		limit:       args.Bytes("memory_limit", 0),
		shrinkOnOOM: args.Bool("shrink_on_oom", false),
		spare:       obNone,
		device:      fitArena{free: freeList{policy: firstFit}},
	}
	if a.align < 1 || a.align > obBinBase || a.align&(a.align-1) != 0 {
		return nil, workloads.Usagef("oneflow-bin: alignment=%d: want a power of two from 1 to 512", a.align)
	}
	a.byOff.grain = uint8(bits.TrailingZeros64(uint64(a.align))) // pieces start at multiples of align
	a.s0 = a.newStream(0)
	return a, nil
}

func (a *oneflowBin) newStream(s int) *obStream {
	st := &obStream{}
	if a.align >= bfcMinAlloc && s < obClassStreams {
		st.classes.init(classLimit, uint8(bits.TrailingZeros64(uint64(a.align)))) // a class per alignment
	}
	return st
}

// stream returns the BinAllocator of stream s, making it on first use.
func (a *oneflowBin) stream(s int) *obStream {
	if s == 0 {
		return a.s0
	}
	if s < len(a.small) && a.small[s] != nil {
		return a.small[s]
	}
	st, ok := a.streams[s]
	if !ok {
		if a.streams == nil {
			a.streams = map[int]*obStream{}
		}
		st = a.newStream(s)
		a.streams[s] = st
		if s < 64 {
			if a.small == nil {
				a.small = make([]*obStream, 64)
			}
			a.small[s] = st
		}
	}
	return st
}

// Reset implements Resetter: the allocator returns to its initial state,
// keeping the memory its tables have grown.
func (a *oneflowBin) Reset() {
	a.s0.clear(a.pieces)
	for _, s := range a.streams {
		s.clear(a.pieces)
	}
	a.pieces = a.pieces[:0]
	a.owner = a.owner[:0]
	a.byOff.clear()
	a.spare = obNone
	a.device = fitArena{free: freeList{policy: firstFit}}
	a.stats = statTracker{}
}

// clear empties s's bins; pieces must still hold their pieces.
func (s *obStream) clear(pieces []bfcChunk) {
	s.classes.clear(pieces)
	s.free.clear()
}

// insert puts the free piece h into s's bins.
func (s *obStream) insert(pieces []bfcChunk, h int32) {
	p := &pieces[h]
	p.bin = 0
	if !s.classes.insert(pieces, h) {
		s.free.insert(fentry{size: p.size, addr: p.addr, h: h})
	}
}

// remove takes the free piece h out of s's bins.
func (s *obStream) remove(pieces []bfcChunk, h int32) {
	p := &pieces[h]
	p.bin = bfcNone
	if !s.classes.remove(pieces, h) {
		s.free.remove(p.size, p.addr)
	}
}

// take removes the smallest free piece of at least size bytes, lowest
// address first, from s's bins and returns it, or obNone.
func (s *obStream) take(pieces []bfcChunk, size int64) int32 {
	if h := s.classes.take(pieces, size); h != bfcNone {
		pieces[h].bin = bfcNone
		return h
	}
	bi, i, ok := s.free.lowerBound(size)
	if !ok {
		return obNone
	}
	h := s.free.removeAt(bi, i)
	pieces[h].bin = bfcNone
	return h
}

// largest returns the size of the largest free piece.
func (s *obStream) largest() int64 {
	n := s.classes.largest()
	if s.free.n > 0 {
		n = max(n, s.free.last().size)
	}
	return n
}

// obBlockSize is the device allocation AllocateBlockToExtendTotalMem makes
// for a rounded size.
func obBlockSize(size int64) int64 {
	switch {
	case size < 1<<20:
		return obSmallBlock
	case size < 10<<20:
		return obLargeBlock
	default:
		return roundPow2(size, obRoundBlock)
	}
}

func (a *oneflowBin) Alloc(size int64) (Block, error) { return a.AllocOn(size, 0) }

// AllocOn implements StreamAllocator: each stream has its own pieces.
func (a *oneflowBin) AllocOn(size int64, stream int) (Block, error) {
	if size <= 0 {
		return Block{}, badSize("oneflow-bin", size)
	}
	if size > maxRequest {
		// No device holds the block such a request needs: it is refused,
		// and with shrink_on_oom the refusal shrinks as any other does
		// (the retry is refused too).
		if a.shrinkOnOOM {
			a.shrink()
		}
		return Block{}, a.stats.oom("oneflow-bin", size)
	}
	s := a.stream(stream)
	size = roundPow2(size, a.align)
	h := a.find(s, size)
	if h == obNone {
		if !a.extend(s, size) && !(a.shrinkOnOOM && a.shrink() && a.extend(s, size)) {
			return Block{}, a.stats.oom("oneflow-bin", size)
		}
		h = a.find(s, size)
	}
	p := &a.pieces[h]
	a.stats.allocated(p.size)
	return Block{Offset: p.addr, Size: p.size}, nil
}

// find takes the smallest free piece of s that holds size out of the bins,
// splitting it when the rule says so, or returns obNone.
func (a *oneflowBin) find(s *obStream, size int64) int32 {
	h := s.take(a.pieces, size)
	if h == obNone {
		return obNone
	}
	p := &a.pieces[h]
	if rest := p.size - size; p.size >= 2*size || rest >= obSplitThreshold {
		q := a.newPiece(bfcChunk{addr: p.addr + size, size: rest, prev: h, next: p.next}, s)
		p = &a.pieces[h] // newPiece may have moved the pieces
		if p.next != obNone {
			a.pieces[p.next].prev = q
		}
		p.next = q
		p.size = size
		s.insert(a.pieces, q)
	}
	return h
}

// extend obtains a block for size from the device into s's bins, or
// reports that the device (memory_limit) refused it.
func (a *oneflowBin) extend(s *obStream, size int64) bool {
	n := roundPow2(obBlockSize(size), a.align)
	if a.limit > 0 && a.stats.st.Reserved+n > a.limit {
		return false
	}
	off := a.device.alloc(n)
	h := a.newPiece(bfcChunk{addr: off, size: n, prev: obNone, next: obNone}, s)
	s.insert(a.pieces, h)
	a.stats.reserve(n)
	return true
}

// shrink gives every wholly free block of every stream back to the device
// (DeallocateFreeBlockForGarbageCollection) and reports whether there was
// one. Neighbours always merge, so a wholly free block is one free piece
// without neighbours.
func (a *oneflowBin) shrink() bool {
	var whole []int32
	for h := range a.pieces {
		if p := &a.pieces[h]; p.bin != bfcNone && p.prev == obNone && p.next == obNone {
			whole = append(whole, int32(h))
		}
	}
	for _, h := range whole {
		p := a.pieces[h]
		a.owner[h].remove(a.pieces, h)
		a.device.free.put(p.addr, p.size)
		a.stats.st.Reserved -= p.size
		a.recycle(h)
	}
	return len(whole) > 0
}

// newPiece stores p, of stream s, under a fresh or recycled handle,
// listed by offset; it is neither free nor handed out yet.
func (a *oneflowBin) newPiece(p bfcChunk, s *obStream) int32 {
	p.bin = bfcNone
	h := a.spare
	if h != obNone {
		a.spare = a.pieces[h].next
		a.pieces[h] = p
		a.owner[h] = s
	} else {
		h = int32(len(a.pieces))
		a.pieces = append(a.pieces, p)
		a.owner = append(a.owner, s)
	}
	a.byOff.put(p.addr, h)
	return h
}

// recycle drops piece h from the offset table and keeps its handle.
func (a *oneflowBin) recycle(h int32) {
	a.byOff.del(a.pieces[h].addr, a.pieces)
	a.pieces[h] = bfcChunk{next: a.spare, bin: bfcNone}
	a.owner[h] = nil
	a.spare = h
}

// Free returns the piece at off to its stream's bins, merged with its free
// neighbours (the next, then the previous).
func (a *oneflowBin) Free(off int64) error {
	h, ok := a.byOff.get(off, a.pieces)
	if !ok || a.pieces[h].bin != bfcNone {
		return badFree("oneflow-bin", off)
	}
	p := &a.pieces[h]
	a.stats.freed(p.size)
	s := a.owner[h]
	if q := p.next; q != obNone && a.pieces[q].bin != bfcNone {
		s.remove(a.pieces, q)
		a.merge(h, q)
	}
	if q := p.prev; q != obNone && a.pieces[q].bin != bfcNone {
		s.remove(a.pieces, q)
		a.merge(q, h)
		h = q
	}
	s.insert(a.pieces, h)
	return nil
}

// merge folds piece q into its left neighbour p; neither is in the bins.
func (a *oneflowBin) merge(p, q int32) {
	pp, qp := &a.pieces[p], &a.pieces[q]
	pp.size += qp.size
	pp.next = qp.next
	if qp.next != obNone {
		a.pieces[qp.next].prev = p
	}
	a.recycle(q)
}

func (a *oneflowBin) Stats() Stats {
	s := a.stats.st
	s.LargestFreeChunk = a.s0.largest()
	for _, st := range a.streams {
		s.LargestFreeChunk = max(s.LargestFreeChunk, st.largest())
	}
	return s
}

// Alignment implements Aligner.
func (a *oneflowBin) Alignment() int64 { return a.align }
