package allocators

import (
	"math"

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
//     least 512<<k bytes and less than twice that (the last bin, from
//     256 MiB, everything larger), each ordered by (size, address). A
//     request searches the bins from its own size's up and takes the
//     first piece at least as large: this is the smallest free piece that
//     fits, ties to the lowest address.
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
//     calls it only from empty_cache (VirtualMachine::ShrinkAllMem), never
//     on a failed allocation, so here it runs only with shrink_on_oom=true:
//     on a refused block, every stream's allocator shrinks and the block
//     is asked for once more.
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
	streams     map[int]*obStream // the others
	pieces      map[int64]*obPiece
	device      fitArena
	spare       *obPiece // recycled pieces, linked by next
	stats       statTracker
}

// The constants of bin_allocator.h, in bytes.
const (
	obBinBase        = 512       // the size of bin 0, kCudaMemAllocAlignSize
	obSplitThreshold = 128 << 20 // kPieceSplitThreshold
	obSmallBlock     = 2 << 20   // the block for sizes below 1 MiB
	obLargeBlock     = 20 << 20  // the block for sizes below 10 MiB
	obRoundBlock     = 2 << 20   // the rounding of larger blocks
)

// obPiece is a piece of a block, free or handed out.
type obPiece struct {
	off, size  int64
	free       bool
	prev, next *obPiece // neighbours in the same block
	stream     *obStream
}

// obStream is one stream's BinAllocator: its free pieces, ordered by
// (size, address), which is the order the bins search in.
type obStream struct {
	free ordset // key size, sub offset
}

// largest returns the size of the largest free piece.
func (s *obStream) largest() int64 {
	if n := s.free.last(); n != nil {
		return n.key
	}
	return 0
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
			{Name: "shrink_on_oom", Default: "false", Doc: "on a refused block, give every wholly free block back and retry once (OneFlow shrinks only on empty_cache)"},
		},
		New: newOneflowBin,
	})
}

func newOneflowBin(args *workloads.Args) (Allocator, error) {
	a := &oneflowBin{
		align:       args.Int64("alignment", obBinBase),
		limit:       args.Bytes("memory_limit", 0),
		shrinkOnOOM: args.Bool("shrink_on_oom", false),
		s0:          &obStream{},
		pieces:      map[int64]*obPiece{},
		device:      fitArena{free: freeList{policy: firstFit}},
	}
	if a.align < 1 || a.align > obBinBase || a.align&(a.align-1) != 0 {
		return nil, workloads.Usagef("oneflow-bin: alignment=%d: want a power of two from 1 to 512", a.align)
	}
	return a, nil
}

// stream returns the BinAllocator of stream s, making it on first use.
func (a *oneflowBin) stream(s int) *obStream {
	if s == 0 {
		return a.s0
	}
	st, ok := a.streams[s]
	if !ok {
		if a.streams == nil {
			a.streams = map[int]*obStream{}
		}
		st = &obStream{}
		a.streams[s] = st
	}
	return st
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
		return Block{}, a.stats.oom("oneflow-bin", size)
	}
	s := a.stream(stream)
	size = roundPow2(size, a.align)
	p := a.find(s, size)
	if p == nil {
		if !a.extend(s, size) && !(a.shrinkOnOOM && a.shrink() && a.extend(s, size)) {
			return Block{}, a.stats.oom("oneflow-bin", size)
		}
		p = a.find(s, size)
	}
	a.stats.allocated(p.size)
	return Block{Offset: p.off, Size: p.size}, nil
}

// find takes the smallest free piece of s that holds size out of the bins,
// splitting it when the rule says so, or returns nil.
func (a *oneflowBin) find(s *obStream, size int64) *obPiece {
	n := s.free.ceil(size, math.MinInt64)
	if n == nil {
		return nil
	}
	p := a.pieces[n.sub]
	s.free.remove(n.key, n.sub)
	p.free = false
	if rest := p.size - size; p.size >= 2*size || rest >= obSplitThreshold {
		q := a.newPiece()
		*q = obPiece{off: p.off + size, size: rest, free: true, prev: p, next: p.next, stream: s}
		if p.next != nil {
			p.next.prev = q
		}
		p.next = q
		p.size = size
		a.pieces[q.off] = q
		s.free.insert(q.size, q.off, 0)
	}
	return p
}

// extend obtains a block for size from the device into s's bins, or
// reports that the device (memory_limit) refused it.
func (a *oneflowBin) extend(s *obStream, size int64) bool {
	n := roundPow2(obBlockSize(size), a.align)
	if a.limit > 0 && a.stats.st.Reserved+n > a.limit {
		return false
	}
	p := a.newPiece()
	*p = obPiece{off: a.device.alloc(n), size: n, free: true, stream: s}
	a.pieces[p.off] = p
	s.free.insert(p.size, p.off, 0)
	a.stats.reserve(n)
	return true
}

// shrink gives every wholly free block of every stream back to the device
// (DeallocateFreeBlockForGarbageCollection) and reports whether there was
// one. Neighbours always merge, so a wholly free block is one free piece
// without neighbours.
func (a *oneflowBin) shrink() bool {
	var whole []*obPiece
	collect := func(s *obStream) {
		s.free.each(func(n *onode) bool {
			if p := a.pieces[n.sub]; p.prev == nil && p.next == nil {
				whole = append(whole, p)
			}
			return true
		})
	}
	collect(a.s0)
	for _, s := range a.streams {
		collect(s)
	}
	for _, p := range whole {
		p.stream.free.remove(p.size, p.off)
		delete(a.pieces, p.off)
		a.device.free.put(p.off, p.size)
		a.stats.st.Reserved -= p.size
		a.recycle(p)
	}
	return len(whole) > 0
}

func (a *oneflowBin) newPiece() *obPiece {
	if p := a.spare; p != nil {
		a.spare = p.next
		return p
	}
	return &obPiece{}
}

func (a *oneflowBin) recycle(p *obPiece) {
	*p = obPiece{next: a.spare}
	a.spare = p
}

// Free returns the piece at off to its stream's bins, merged with its free
// neighbours.
func (a *oneflowBin) Free(off int64) error {
	p, ok := a.pieces[off]
	if !ok || p.free {
		return badFree("oneflow-bin", off)
	}
	a.stats.freed(p.size)
	p.free = true
	s := p.stream
	if q := p.next; q != nil && q.free {
		s.free.remove(q.size, q.off)
		a.merge(p, q)
	}
	if q := p.prev; q != nil && q.free {
		s.free.remove(q.size, q.off)
		a.merge(q, p)
		p = q
	}
	s.free.insert(p.size, p.off, 0)
	return nil
}

// merge folds free piece q into its left neighbour p.
func (a *oneflowBin) merge(p, q *obPiece) {
	p.size += q.size
	p.next = q.next
	if q.next != nil {
		q.next.prev = p
	}
	delete(a.pieces, q.off)
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
