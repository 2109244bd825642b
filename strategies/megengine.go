package strategies

import (
	"context"
	"fmt"
	"math"
	"slices"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

// megengine-pushdown follows MegEngine's static memory allocator with the
// algorithm its graph optimiser uses, fed as that optimiser feeds it:
// MegEngine/MegEngine at 47952c075d868665e1116214bea760d786144081
// (October 2024), src/core/impl/graph/var_node_mem_mgr/seq_mem_opt.cpp
// (the caller) and static_mem_alloc/pushdown.cpp, best_fit_helper.cpp
// and impl.cpp (the allocator).
//
// The caller (SeqMemOptimizer::run_static_mem_alloc): a chunk lives
// [begin, end), begin the index of the operator that defines it, end one
// past the last that reads it, so [First, Last+1) here. Zero-size chunks
// are never handed to the allocator (they get offset 0 here and take no
// space). The others are added sorted by (begin, end); ties keep problem
// order (MegEngine's come out of a hash map in no fixed order, which
// membench must fix). The allocator is asked for AllocatorAlgo::PUSHDOWN
// with the comp node's alignment and padding (device properties: CUDA's
// texture alignment, the CPU's MegDNN handle requirement; padding 0 except
// 32 on Atlas); here the problem's alignment and no padding. The arena it
// reports, tot_alloc(), is the highest offset+size rounded up to the
// alignment (megengineTotAlloc), which can exceed the plan's footprint.
//
// The allocator, in our words, numbers the chunks in the order they were
// added ("input order" below) and runs in two steps.
//
// 1. A best-fit pre-allocation fixes only the vertical order of the
// intervals. Time is walked in increasing order; at each time the
// intervals ending there are freed, then those starting there allocated,
// each group in input order. Memory is a list of blocks (no addresses),
// each holding an interval or free; adjacent free blocks merge. A free
// block carries a time end: that of the interval whose release made it,
// or, for the part of a block an allocation leaves over, that of the
// interval allocated.
// An allocation of s bytes takes the free block of the smallest size >= s,
// ties going to the block with the latest time end, then the one that
// became free first. If no free block is large enough, the largest free
// block (ties: the earliest time end, then the one that became free last)
// grows to s: unlike a
// plain best fit, the chunk is enlarged rather than a new one stacked on
// top. Only when there is no free block at all does a new block go on top.
// Whatever the interval does not use stays free just above it. Each
// interval records the allocated intervals directly below and above it
// at that moment (looking past one free block).
//
// 2. Push down: an interval's address is the highest end among the
// intervals recorded below it (its own "below" and those that recorded it
// as their "above"), rounded up to the alignment; 0 if none. MegEngine's
// total (m_peak_usage) is the highest end rounded up to the alignment:
// Plan.Arena where that differs from max(offset+size).
//
// Growth: O(n log n) (the free blocks sit in a balanced tree, the push
// down visits each "below" link once).
//
// Not modelled: overwrite specs (an output written in place over an
// input, MegEngine's in-place reuse), chunks that are never reclaimed
// (NO_MEM_RECLAIM) and padding (0 here); MegEngine's alignment must be a
// power of two, the problem's may be any.

func init() {
	Register(Info{
		Name:    "megengine-pushdown",
		Runtime: "megengine",
		Kind:    Offsets,
		Doc: "MegEngine static_mem_alloc PUSHDOWN, fed as seq_mem_opt does (sized chunks by first, last): best fit over a block list whose chunks grow " +
			"when nothing fits fixes the vertical order, then every interval is pushed down onto those below it",
		Arena: "m_peak_usage: the highest end rounded up to the alignment",
		New:   Simple(func() Strategy { return megenginePushdown{} }),
	})
}

type megenginePushdown struct{}

func (megenginePushdown) Name() string { return "megengine-pushdown" }

func (megenginePushdown) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	align := max(p.Alignment, 1)
	offsets, err := megengineSeqMemOpt(ctx, p.Buffers, align)
	if err != nil {
		return nil, err
	}
	arena := megengineTotAlloc(p.Buffers, offsets, align)
	return setArena(&Plan{Offsets: offsets, Footprint: Footprint(p.Buffers, offsets)}, arena), nil
}

// megengineSeqMemOpt hands bufs to the allocator as seq_mem_opt.cpp does:
// only the buffers with a size, sorted by (First, Last), ties in problem
// order. Zero-size buffers get offset 0.
func megengineSeqMemOpt(ctx context.Context, bufs []workloads.Buffer, align int64) ([]int64, error) {
	if err := kernel.RecordError("megengine-pushdown", bufs); err != nil {
		return nil, err
	}
	byTime := kernel.StableOrder(len(bufs),
		func(i int32) int64 { return int64(bufs[i].First) },
		func(i int32) int64 { return int64(bufs[i].Last) })
	added := byTime[:0]
	for _, i := range byTime {
		if bufs[i].Size != 0 {
			added = append(added, i)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	chunks := make([]workloads.Buffer, len(added))
	for k, i := range added {
		chunks[k] = bufs[i]
	}
	at, err := megenginePushdownOffsets(ctx, chunks, align)
	if err != nil {
		return nil, err
	}
	offsets := make([]int64, len(bufs))
	for k, i := range added {
		offsets[i] = at[k]
	}
	return offsets, nil
}

// megengineTotAlloc is the arena MegEngine reports for a plan,
// StaticMemAllocPushdown::tot_alloc(): the highest end address of the
// chunks it was given (those with a size), each rounded up to the
// alignment.
func megengineTotAlloc(bufs []workloads.Buffer, offsets []int64, align int64) int64 {
	var tot int64
	for i, b := range bufs {
		if b.Size != 0 {
			tot = max(tot, AlignUp(offsets[i]+b.Size, max(align, 1)))
		}
	}
	return tot
}

// meBlock is one block of the pre-allocation's list.
type meBlock struct {
	interval   int32 // -1 when free
	size       int64 // free blocks only
	timeEnd    int64
	prev, next int32 // -1 at the ends
}

// mePrealloc is BestfitPrealloc: the block list and the free blocks by
// (size, latest time end, order of freeing).
type mePrealloc struct {
	blk        []meBlock
	head, tail int32
	free       kernel.KeyTreap
	seq        int64
}

func (m *mePrealloc) newBlock(b meBlock) int32 {
	m.blk = append(m.blk, b)
	return int32(len(m.blk) - 1)
}

// linkBefore puts block b into the list before pos (-1: at the end).
func (m *mePrealloc) linkBefore(b, pos int32) {
	prev := m.tail
	if pos >= 0 {
		prev = m.blk[pos].prev
		m.blk[pos].prev = b
	} else {
		m.tail = b
	}
	m.blk[b].prev, m.blk[b].next = prev, pos
	if prev >= 0 {
		m.blk[prev].next = b
	} else {
		m.head = b
	}
}

func (m *mePrealloc) unlink(b int32) {
	p, n := m.blk[b].prev, m.blk[b].next
	if p >= 0 {
		m.blk[p].next = n
	} else {
		m.head = n
	}
	if n >= 0 {
		m.blk[n].prev = p
	} else {
		m.tail = p
	}
}

func (m *mePrealloc) isFree(b int32) bool { return b >= 0 && m.blk[b].interval < 0 }

// insertFreeBefore adds size free bytes before pos, merged with free
// neighbours; the merged block gets timeEnd.
func (m *mePrealloc) insertFreeBefore(pos int32, size, timeEnd int64) {
	if m.isFree(pos) {
		size += m.blk[pos].size
		next := m.blk[pos].next
		m.free.Erase(pos)
		m.unlink(pos)
		pos = next
	}
	prev := m.tail
	if pos >= 0 {
		prev = m.blk[pos].prev
	}
	if m.isFree(prev) {
		size += m.blk[prev].size
		m.free.Erase(prev)
		m.unlink(prev)
	}
	if size == 0 {
		return
	}
	b := m.newBlock(meBlock{interval: -1, size: size, timeEnd: timeEnd})
	m.linkBefore(b, pos)
	m.seq++
	m.free.Grow(int(b) + 1)
	m.free.Key[b] = kernel.OrderedKey{size, -timeEnd, m.seq}
	m.free.Insert(b)
}

// alloc places interval i (size s, time end te) and returns its block and
// the intervals directly below and above it (-1 for none).
func (m *mePrealloc) alloc(i int32, s, te int64) (blk, below, above int32) {
	b := m.free.Ceil(kernel.OrderedKey{s, math.MinInt64, math.MinInt64})
	if b < 0 {
		b = m.free.Last()
	}
	if b < 0 {
		b = m.newBlock(meBlock{interval: i, timeEnd: te})
		m.linkBefore(b, -1)
	} else {
		m.free.Erase(b)
		rest := max(m.blk[b].size-s, 0) // a grown block has no rest
		m.blk[b].interval = i
		m.insertFreeBefore(m.blk[b].next, rest, te)
	}
	m.blk[b].interval, m.blk[b].size, m.blk[b].timeEnd = i, 0, te
	below, above = -1, -1
	if p := m.blk[b].prev; p >= 0 {
		if m.isFree(p) && m.blk[p].prev >= 0 {
			p = m.blk[p].prev
		}
		if !m.isFree(p) {
			below = m.blk[p].interval
		}
	}
	if p := m.blk[b].next; p >= 0 {
		if m.isFree(p) {
			p = m.blk[p].next
		}
		if p >= 0 && !m.isFree(p) {
			above = m.blk[p].interval
		}
	}
	return b, below, above
}

// release frees block b, which holds an interval of the given size.
func (m *mePrealloc) release(b int32, size int64) {
	te := m.blk[b].timeEnd
	pos := m.blk[b].next
	m.unlink(b)
	m.insertFreeBefore(pos, size, te)
}

// megenginePushdownOffsets runs StaticMemAllocPushdown on bufs, added in
// their order (the allocator alone, as MegEngine's own tests call it).
func megenginePushdownOffsets(ctx context.Context, bufs []workloads.Buffer, align int64) ([]int64, error) {
	if err := kernel.RecordError("megengine-pushdown", bufs); err != nil {
		return nil, err
	}
	n := len(bufs)
	if n > math.MaxInt32/2 { // two events per interval, numbered in int32
		return nil, fmt.Errorf("megengine-pushdown: %d buffers is too many", n)
	}
	// Events 2i (alloc) and 2i+1 (free) of interval i, by (time, frees
	// before allocs, input order): stable radix sorts from that order.
	at := func(e int32) int64 {
		if e%2 == 0 {
			return int64(bufs[e/2].First)
		}
		return int64(bufs[e/2].Last) + 1
	}
	events := kernel.StableOrder(2*n, at, func(e int32) int64 { return 1 - int64(e%2) })
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Each allocation adds at most an allocated and a free block, each
	// release one free block.
	m := &mePrealloc{head: -1, tail: -1, blk: make([]meBlock, 0, 3*n)}
	m.free.Reserve(3 * n)
	blockOf := make([]int32, n)
	below := make([]int32, n) // directly below at allocation, -1 for none
	above := make([]int32, n)
	for k, e := range events {
		if k%kernel.CtxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		i := e / 2
		if e%2 == 0 {
			blockOf[i], below[i], above[i] = m.alloc(i, bufs[i].Size, int64(bufs[i].Last)+1)
			continue
		}
		m.release(blockOf[i], bufs[i].Size)
	}

	// Push down: lists of the intervals below each one (CSR).
	cnt := make([]int32, n+1)
	for i := range n {
		if below[i] >= 0 {
			cnt[i+1]++
		}
		if above[i] >= 0 {
			cnt[above[i]+1]++
		}
	}
	for i := range n {
		cnt[i+1] += cnt[i]
	}
	under := make([]int32, cnt[n])
	fill := slices.Clone(cnt[:n])
	for i := range n {
		if below[i] >= 0 {
			under[fill[i]] = below[i]
			fill[i]++
		}
		if a := above[i]; a >= 0 {
			under[fill[a]] = int32(i)
			fill[a]++
		}
	}
	offsets := make([]int64, n)
	state := make([]uint8, n) // 0 new, 1 on the stack, 2 placed
	type frame struct{ i, k int32 }
	var stack []frame
	for r := range n {
		if r%kernel.CtxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if state[r] == 2 {
			continue
		}
		stack = append(stack[:0], frame{int32(r), cnt[r]})
		state[r] = 1
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.k < cnt[f.i+1] {
				j := under[f.k]
				f.k++
				switch state[j] {
				case 0:
					state[j] = 1
					stack = append(stack, frame{j, cnt[j]})
				case 1:
					return nil, fmt.Errorf("megengine-pushdown: the below relation has a cycle through buffer %d", j)
				}
				continue
			}
			var addr int64
			for _, j := range under[cnt[f.i]:cnt[f.i+1]] {
				addr = max(addr, offsets[j]+bufs[j].Size)
			}
			offsets[f.i] = AlignUp(addr, align)
			state[f.i] = 2
			stack = stack[:len(stack)-1]
		}
	}
	return offsets, nil
}
