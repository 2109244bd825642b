package strategies

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

// tvm-greedy-by-size, tvm-greedy-by-conflicts and tvm-hill-climb follow
// TVM's Unified Static Memory Planner (USMP): apache/tvm
// src/tir/usmp/algo/greedy.cc and hill_climb.cc at
// fb43fc85774b4d1e65a8ce7451fb09d00e648c45 (February 2025), the parent of
// a531d170b9b3c1e1ab31e2c40173c181e867dd2c ("[REFACTOR] Phase out relay c++
// components"), which removed USMP.
//
// USMP plans over a conflict graph: every buffer lists the buffers it must
// not share memory with. Here those are the buffers live at a common task
// (DESIGN §1), and a buffer's name (USMP's name_hint, its last tie-break)
// is its ID written in decimal, as TVM's own hill-climb tests name theirs;
// names compare as strings, so "10" sorts before "9".
//
// greedy_by_size sorts by size descending, then number of conflicts
// descending, then name descending; greedy_by_conflicts by conflicts,
// then size, then name, all descending. Both then place each buffer at
// the highest end, rounded up to the alignment, of its conflicting buffers
// placed before it (0 if none): no gaps are reused.
//
// hill_climb starts from greedy_by_size's order and runs up to 500
// attempts. Each attempt places the buffers in the current order at the
// lowest offset where they fit: the placed conflicting buffers are walked
// by offset, and the candidate moves to a buffer's aligned end whenever
// that end is above it and the buffer starts below the candidate's end.
// The result is accepted if it is the first, or smaller than the last
// accepted one, or, with probability (50*(new-old)/new/attempt) % (integer
// arithmetic), larger; otherwise the last recorded swap is undone (TVM
// does so even when the attempt before made no swap). The search stops
// early once an accepted result is at most the memory pressure (USMP
// passes the peak of live bytes, LB_load). Between attempts one of the
// buffers that reach the top (chosen at random) picks a conflicting buffer
// placed before it (first level) and, mostly (random % 100 > 25), one
// placed before one of its conflicts (second level), and the two swap
// places in the order. Random numbers come from glibc's rand_r with seed
// 0, as TVM on Linux; the last accepted result, not the best, is returned.
//
// The greedy planners never build the graph (it has up to n^2 edges): the
// number of conflicts and the highest placed end over a lifetime come from
// sorted lifetimes and a segment tree, with the same result. The hill
// climb needs the lists and builds them, up to 2^26 conflicting pairs.
// Growth: the greedy planners O(n log n); the hill climb O(n log n + E)
// for the graph of E pairs, then per attempt O(n + E log E) at most.
//
// Ties TVM leaves to std::sort (equal names; equal offsets in the hill
// climb's walk) go by input order and placement order. Where TVM's swap
// loop could spin forever (every candidate is the buffer being moved) it
// stops and skips the swap.
//
// The caller, PlanMemory in src/tir/usmp/unified_static_memory_planner.cc,
// gets the buffers from ExtractBufferInfo
// (src/tir/usmp/analysis/extract_buffer_info.cc): two buffers conflict
// when their first-to-last statement ranges meet (a start sorts before an
// end at the same statement), which is DESIGN §1's rule; the memory
// pressure it passes is the peak of live bytes, LB_load; and every
// workspace buffer gets the AOT executor's workspace-byte-alignment, 16
// unless set, whatever the buffer (TVM's own algorithm tests construct
// BufferInfo with alignment 1 instead). So the planners here use the
// parameter workspace_byte_alignment, 16 by default, combined with the
// problem's alignment (their least common multiple). The order of the
// buffer array (a Map's iteration) and of each conflict list (an
// unordered set's) follow object addresses in TVM; here the array is in
// problem order, and a buffer's conflicts list those live when it starts,
// then those that start while it lives, each by (first task, buffer).
//
// Not modelled: several pools and their size hints (one unbounded pool;
// TVM fails where a bounded pool overflows), per-buffer alignments (one
// alignment for every buffer), constant pools.

func init() {
	alignDoc := []workloads.ParamDoc{{Name: "workspace_byte_alignment", Default: "16",
		Doc: "the AOT executor's workspace-byte-alignment, every buffer's alignment (combined with the problem's)"}}
	Register(Info{
		Name:    "tvm-greedy-by-size",
		Runtime: "tvm",
		Kind:    Offsets,
		Doc: "TVM USMP greedy_by_size: size, then conflicts, then name descending; each buffer " +
			"above every conflicting buffer placed before it",
		Params: alignDoc,
		New: func(args *workloads.Args) (Strategy, error) {
			a, err := tvmAlignment("tvm-greedy-by-size", args)
			if err != nil {
				return nil, err
			}
			return tvmGreedy{byConflicts: false, align: a}, nil
		},
	})
	Register(Info{
		Name:    "tvm-greedy-by-conflicts",
		Runtime: "tvm",
		Kind:    Offsets,
		Doc: "TVM USMP greedy_by_conflicts: conflicts, then size, then name descending; each buffer " +
			"above every conflicting buffer placed before it",
		Params: alignDoc,
		New: func(args *workloads.Args) (Strategy, error) {
			a, err := tvmAlignment("tvm-greedy-by-conflicts", args)
			if err != nil {
				return nil, err
			}
			return tvmGreedy{byConflicts: true, align: a}, nil
		},
	})
	Register(Info{
		Name:    "tvm-hill-climb",
		Runtime: "tvm",
		Kind:    Offsets,
		Doc: "TVM USMP hill_climb: up to 500 first-fit passes over orders perturbed by swapping " +
			"conflicting buffers near the top, glibc rand_r seed 0; stops at LB_load",
		Params: alignDoc,
		New: func(args *workloads.Args) (Strategy, error) {
			a, err := tvmAlignment("tvm-hill-climb", args)
			if err != nil {
				return nil, err
			}
			return tvmHillClimb{align: a}, nil
		},
	})
}

// tvmDefaultAlignment is the workspace-byte-alignment extract_buffer_info.cc
// gives every buffer when the executor sets none.
const tvmDefaultAlignment = 16

func tvmAlignment(name string, args *workloads.Args) (int64, error) {
	return alignmentParam(name, args, "workspace_byte_alignment", tvmDefaultAlignment)
}

// usmpGraph is USMP's input: buffers with sizes, names and conflict lists
// (in CSR form: the conflicts of i are nbr[start[i]:start[i+1]]).
type usmpGraph struct {
	size  []int64
	name  []string
	start []int32
	nbr   []int32
	align int64
}

func (g *usmpGraph) conflicts(i int32) []int32 { return g.nbr[g.start[i]:g.start[i+1]] }

// tvmMaxConflicts caps the conflict graph USMP builds: every pair of
// buffers live at once is an entry (twice).
const tvmMaxConflicts = 1 << 27

// newUSMPGraph builds the conflict graph of bufs: i and j conflict iff they
// are live at a common task.
func newUSMPGraph(ctx context.Context, name string, bufs []workloads.Buffer, align int64) (*usmpGraph, error) {
	if err := kernel.RecordError(name, bufs); err != nil {
		return nil, err
	}
	n := len(bufs)
	g := &usmpGraph{size: make([]int64, n), name: make([]string, n), start: make([]int32, n+1), align: max(align, 1)}
	for i, b := range bufs {
		g.size[i] = b.Size
		g.name[i] = strconv.Itoa(b.ID)
	}
	// In order of (First, index), a buffer conflicts with the ones after it
	// that start no later than its last task: a run of the next ones.
	byFirst := kernel.ByFirst(bufs)
	runEnd := make([]int32, n)
	deg := make([]int64, n)
	var total int64
	for a := range n {
		if a%kernel.CtxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		last := bufs[byFirst[a]].Last
		e := a + 1
		for e < n && bufs[byFirst[e]].First <= last {
			deg[byFirst[e]]++
			e++
		}
		runEnd[a] = int32(e)
		deg[byFirst[a]] += int64(e - a - 1)
		if total += 2 * int64(e-a-1); total > tvmMaxConflicts {
			return nil, fmt.Errorf("%s: more than %d conflicting pairs of buffers; TVM's conflict graph would not fit", name, tvmMaxConflicts/2)
		}
	}
	for i := range n {
		g.start[i+1] = g.start[i] + int32(deg[i])
	}
	g.nbr = make([]int32, total)
	fill := slices.Clone(g.start[:n])
	for a := range n {
		if a%kernel.CtxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		i := byFirst[a]
		for _, j := range byFirst[a+1 : runEnd[a]] {
			g.nbr[fill[i]] = j
			fill[i]++
			g.nbr[fill[j]] = i
			fill[j]++
		}
	}
	return g, nil
}

// degrees returns the length of every conflict list.
func (g *usmpGraph) degrees() []int32 {
	deg := make([]int32, len(g.size))
	for i := range deg {
		deg[i] = g.start[i+1] - g.start[i]
	}
	return deg
}

// usmpOrder returns the buffers sorted as greedy_by_size (byConflicts
// false) or greedy_by_conflicts sorts them, given their sizes, names and
// numbers of conflicts.
func usmpOrder(size []int64, name []string, deg []int32, byConflicts bool) []int32 {
	order := make([]int32, len(size))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		bySize := cmp.Compare(size[b], size[a])
		byDeg := cmp.Compare(deg[b], deg[a])
		if byConflicts {
			bySize, byDeg = byDeg, bySize
		}
		if bySize != 0 {
			return bySize
		}
		if byDeg != 0 {
			return byDeg
		}
		if c := cmp.Compare(name[b], name[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return order
}

// usmpGreedy is GreedyBase::PostSortAllocation on one unbounded pool: each
// buffer at the highest aligned end of its conflicts placed before it.
func usmpGreedy(ctx context.Context, g *usmpGraph, order []int32) ([]int64, error) {
	n := len(order)
	pos := make([]int32, n)
	for q, i := range order {
		pos[i] = int32(q)
	}
	offsets := make([]int64, n)
	for q, i := range order {
		if q%kernel.CtxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		var off int64
		for _, j := range g.conflicts(i) {
			if pos[j] < int32(q) {
				off = max(off, AlignUp(offsets[j]+g.size[j], g.align))
			}
		}
		offsets[i] = off
	}
	return offsets, nil
}

type tvmGreedy struct {
	byConflicts bool
	align       int64 // workspace_byte_alignment
}

func (t tvmGreedy) Name() string {
	if t.byConflicts {
		return "tvm-greedy-by-conflicts"
	}
	return "tvm-greedy-by-size"
}

func (t tvmGreedy) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	align, err := runtimeAlignment(t.Name(), t.align, p.Alignment)
	if err != nil {
		return nil, err
	}
	offsets, err := usmpGreedyIntervals(ctx, t.Name(), p.Buffers, align, t.byConflicts)
	if err != nil {
		return nil, err
	}
	return &Plan{Offsets: offsets, Footprint: Footprint(p.Buffers, offsets)}, nil
}

// usmpGreedyIntervals is usmpGreedy on the conflict graph of bufs without
// building it: the number of conflicts of a buffer is n-1 less those that
// start after it ends and those that end before it starts (binary
// searches), and "the highest aligned end among placed conflicting
// buffers" is a range maximum over time, where placing a buffer raises
// every task of its lifetime to its aligned end (a segment tree). O(n log
// n) where the graph has up to n^2 edges.
func usmpGreedyIntervals(ctx context.Context, name string, bufs []workloads.Buffer, align int64, byConflicts bool) ([]int64, error) {
	if err := kernel.RecordError(name, bufs); err != nil {
		return nil, err
	}
	align = max(align, 1)
	n := len(bufs)
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("%s: %d buffers is too many", name, n)
	}
	size := make([]int64, n)
	names := make([]string, n)
	firsts := make([]int, n)
	lasts := make([]int, n)
	for i, b := range bufs {
		size[i], names[i] = b.Size, strconv.Itoa(b.ID)
		firsts[i], lasts[i] = b.First, b.Last
	}
	slices.Sort(firsts)
	slices.Sort(lasts)
	deg := make([]int32, n)
	for i, b := range bufs {
		startAfter := n - sort.SearchInts(firsts, b.Last+1)
		endBefore := sort.SearchInts(lasts, b.First)
		deg[i] = int32(n - 1 - startAfter - endBefore)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	order := usmpOrder(size, names, deg, byConflicts)

	// Time points: the distinct first tasks. A lifetime covers the points
	// of its span; two lifetimes overlap iff they share a point (the
	// later-starting one's first task is such a point).
	ts := kernel.NewTaskSpans(bufs, false)
	// One record per buffer in placement order keeps the loop's reads
	// sequential.
	type item struct {
		lo, hi, i int32
		size      int64
	}
	items := make([]item, n)
	for k, i := range order {
		sp := ts.Span[ts.ID[i]]
		items[k] = item{sp[0], sp[1], i, size[i]}
	}
	tr := newChmaxTree(int(ts.Tasks()))
	offsets := make([]int64, n)
	for k, it := range items {
		if k%kernel.CtxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		off := tr.max(it.lo, it.hi)
		offsets[it.i] = off
		tr.raise(it.lo, it.hi, AlignUp(off+it.size, align))
	}
	return offsets, nil
}

// chmaxTree holds a value per point, all 0 at first, under two operations:
// raise every point of a range to at least v, and the maximum over a
// range. It is a bottom-up segment tree: a raise tags the range's
// canonical nodes (tag), and a node's top bounds the values of the points
// below it. Every node above a canonical node of a range lies on the path
// from the range's first or last leaf to the root, and those paths' nodes
// all cover a point of the range; so a query is the tops of its canonical
// nodes and the tags on those two paths, and a raise lifts the tops on
// them (a top may so exceed its subtree's value only below a node tagged
// at least as high, which every query through it also reads).
type chmaxTree struct {
	leaves   int32
	tag, top []int64
}

// newChmaxTree returns a tree over points 0..n-1. The leaves are rounded
// up to a power of two, so that every node covers a run of points.
func newChmaxTree(n int) *chmaxTree {
	leaves := 1
	for leaves < n {
		leaves *= 2
	}
	return &chmaxTree{leaves: int32(leaves), tag: make([]int64, 2*leaves), top: make([]int64, 2*leaves)}
}

// raise lifts points l..r (inclusive) to at least v.
func (t *chmaxTree) raise(l, r int32, v int64) {
	for a, b := l+t.leaves, r+t.leaves+1; a < b; a, b = a>>1, b>>1 {
		if a&1 == 1 {
			t.tag[a], t.top[a] = max(t.tag[a], v), max(t.top[a], v)
			a++
		}
		if b&1 == 1 {
			b--
			t.tag[b], t.top[b] = max(t.tag[b], v), max(t.top[b], v)
		}
	}
	for _, x := range [2]int32{l + t.leaves, r + t.leaves} {
		for ; x >= 1; x >>= 1 {
			t.top[x] = max(t.top[x], v)
		}
	}
}

// max returns the largest value of points l..r (inclusive).
func (t *chmaxTree) max(l, r int32) int64 {
	var m int64
	for a, b := l+t.leaves, r+t.leaves+1; a < b; a, b = a>>1, b>>1 {
		if a&1 == 1 {
			m = max(m, t.top[a])
			a++
		}
		if b&1 == 1 {
			b--
			m = max(m, t.top[b])
		}
	}
	for _, x := range [2]int32{l + t.leaves, r + t.leaves} {
		for ; x >= 1; x >>= 1 {
			m = max(m, t.tag[x])
		}
	}
	return m
}

type tvmHillClimb struct {
	align int64 // workspace_byte_alignment
}

func (tvmHillClimb) Name() string { return "tvm-hill-climb" }

func (t tvmHillClimb) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	align, err := runtimeAlignment("tvm-hill-climb", t.align, p.Alignment)
	if err != nil {
		return nil, err
	}
	g, err := newUSMPGraph(ctx, "tvm-hill-climb", p.Buffers, align)
	if err != nil {
		return nil, err
	}
	offsets, err := usmpHillClimb(ctx, g, p.LoadBound())
	if err != nil {
		return nil, err
	}
	return &Plan{Offsets: offsets, Footprint: Footprint(p.Buffers, offsets)}, nil
}

// usmpMaxAttempts is hill_climb.cc's _max_attempts.
const usmpMaxAttempts = 500

// randR is glibc's rand_r: three steps of the ANSI C LCG per call, 11 + 10
// + 10 bits of output.
type randR uint32

func (s *randR) next() int32 {
	x := uint32(*s)
	x = x*1103515245 + 12345
	r := (x / 65536) % 2048
	x = x*1103515245 + 12345
	r = r<<10 ^ (x/65536)%1024
	x = x*1103515245 + 12345
	r = r<<10 ^ (x/65536)%1024
	*s = randR(x)
	return int32(r)
}

// usmpHillClimb is HillClimbAllocator::PlanMemory on one unbounded pool;
// desired is its memory_pressure.
func usmpHillClimb(ctx context.Context, g *usmpGraph, desired int64) ([]int64, error) {
	n := len(g.size)
	if n == 0 {
		return []int64{}, nil
	}
	order := usmpOrder(g.size, g.name, g.degrees(), false)
	pos := make([]int32, n)
	for q, i := range order {
		pos[i] = int32(q)
	}
	var rnd randR
	dirty := int32(0) // see below
	swap := func(i1, i2 int32) {
		if i1 == i2 {
			return
		}
		b1, b2 := order[i1], order[i2]
		order[i1], order[i2] = b2, b1
		pos[b1], pos[b2] = i2, i1
		dirty = min(dirty, i1, i2)
	}
	high := func(offsets []int64) int64 {
		var h int64
		for i, o := range offsets {
			h = max(h, o+g.size[i])
		}
		return h
	}

	// A pass at a position depends only on the order up to it, so each
	// pass starts from the lowest position swapped since the last one and
	// copies the offsets below it.
	var last []int64
	var conf []int32

	var totalSize int64
	swapI1, swapI2 := int32(-1), int32(-1)
	var pool, rollback, result []int64
	var first, second []int32
	for attempts := 0; attempts < usmpMaxAttempts; attempts++ {
		rollback = pool
		cur := make([]int64, n)
		if last != nil {
			for _, i := range order[:dirty] {
				cur[i] = last[i]
			}
		}
		work := 0
		for q := int(dirty); q < n; q++ {
			// Poll ctx by work done: a buffer can conflict with all others.
			if work += len(conf) + 1; work >= kernel.CtxCheckEvery*64 || q == int(dirty) {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				work = 0
			}
			i := order[q]
			conf = conf[:0]
			for _, j := range g.conflicts(i) {
				if pos[j] < int32(q) {
					conf = append(conf, j)
				}
			}
			slices.SortFunc(conf, func(a, b int32) int {
				if c := cmp.Compare(cur[a], cur[b]); c != 0 {
					return c
				}
				return cmp.Compare(pos[a], pos[b])
			})
			var cand int64
			for _, j := range conf {
				next := AlignUp(cur[j]+g.size[j], g.align)
				if next > cand && cand+g.size[i] > cur[j] {
					cand = next
				}
			}
			cur[i] = cand
		}
		last, dirty = cur, int32(n)
		pool = cur

		total := high(pool)
		poolSize := total
		accept := totalSize == 0 || totalSize > total
		if !accept {
			// size_t arithmetic, as in TVM.
			accept = int64(rnd.next()%100) < int64(int32(50*uint64(total-totalSize)/uint64(total)/uint64(attempts)))
		}
		if accept {
			result = pool
			totalSize = total
			if totalSize <= desired {
				break
			}
		} else {
			swap(swapI2, swapI1)
			pool = rollback
			poolSize = high(pool)
		}

		// The buffers reaching the top, by position; one at random.
		var top []int32
		for q, i := range order {
			if pool[i]+g.size[i] == poolSize {
				top = append(top, int32(q))
			}
		}
		node := order[top[int(rnd.next())%len(top)]]

		first, second = first[:0], second[:0]
		for _, c1 := range g.conflicts(node) {
			if pos[node] > pos[c1] {
				first = append(first, c1)
			}
			for _, c2 := range g.conflicts(c1) {
				if pos[c1] > pos[c2] {
					second = append(second, c2)
				}
			}
		}
		byPos := func(a, b int32) int { return cmp.Compare(pos[a], pos[b]) }
		slices.SortFunc(first, byPos)
		slices.SortFunc(second, byPos)
		if len(first) == 0 {
			continue
		}
		buf1 := first[int(rnd.next())%len(first)]
		buf2 := buf1
		stuck := !slices.ContainsFunc(first, func(b int32) bool { return b != buf1 }) &&
			!slices.ContainsFunc(second, func(b int32) bool { return b != buf1 })
		for buf2 == buf1 {
			if len(second) > 0 && rnd.next()%100 > 25 {
				buf2 = second[int(rnd.next())%len(second)]
			} else {
				buf2 = first[int(rnd.next())%len(first)]
			}
			if len(second) < 2 && len(first) < 2 || stuck {
				break
			}
		}
		if buf1 == buf2 {
			continue
		}
		swapI1, swapI2 = pos[buf1], pos[buf2]
		swap(swapI1, swapI2)
	}
	return result, nil
}
