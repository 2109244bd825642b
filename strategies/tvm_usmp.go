package strategies

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync/atomic"
	"time"

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
// climb keeps USMP's lists up to 4M conflicting pairs (usmpListPairs);
// past that (idealloc/y-1's 1.8e8 pairs would take 1.4 GB) the lists are
// the overlapping lifetimes themselves: a swap's first-level candidates
// come from a walk over the positions, its second-level ones from counts
// over time (usmpPicks.gatherSpans), and a pass's changes reach the
// buffers they concern through a segment tree over time (usmpPass.tt),
// with the same result. Its passes are incremental (usmpPass: only the
// buffers a swap can have moved are placed again, through
// kernel.CompIndex; from attempt usmpSureReject on, where no pool has a
// size hint, a pass stops once it reaches the last accepted total, as
// TVM would reject it whatever its end), and its second-level swap
// candidates are counted by position (usmpPicks). The passes of the next
// attempts run beside the current one, each as it would be were the
// attempts before it rejected after one draw, and are used only where
// they were (usmpSpec): on the lanes of several workers (the parameter
// workers, a membench extension), and, in one unbounded pool, up to four
// in lockstep on a lane, sharing the index of the buffers they all keep
// in place. The plan is the same for any number. Growth: the
// greedy planners O(n log n); the hill climb with lists O(n log n + E) for the
// graph of E pairs, then per attempt O(n log n + E) at most; without
// them O(n log n) per attempt besides the passes' placements.
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
// Pools: a problem's memory spaces are USMP's workspace pools, each
// buffer with its space as its one pool candidate, and a space's capacity
// is the pool's size_hint_bytes (none: unbounded). The planners plan the
// pools together, as USMP does (Info.Forms has FormMemories): the order is
// over all buffers, and the number of conflicts counts those in every
// pool (ExtractBufferInfo's conflicts ignore pools), but a buffer is only
// placed against the conflicts in its own pool. A buffer that would end
// past its pool's size hint is USMP's error ("the space available in the
// provided pools exceeded ... Please increase the size_hints for memory
// pools"). The hill climb's total is the sum of the pools' sizes, its
// memory pressure LB_load over all buffers, and a pass where a buffer
// found no room is handled as hill_climb.cc does (usmpHillClimb). Each
// pool is an arena of its own: Plan.Footprints holds each pool's size.
//
// Not modelled: several pool candidates per buffer (membench's buffer
// names one space), per-buffer alignments (USMP rounds a conflict's end
// up to the conflict's own alignment, not the placed buffer's, which does
// not align the buffer: refused), constant pools.

func init() {
	alignDoc := []workloads.ParamDoc{{Name: "workspace_byte_alignment", Default: "16",
		Doc: "the AOT executor's workspace-byte-alignment, every buffer's alignment (combined with the problem's)"}}
	Register(Info{
		Name:    "tvm-greedy-by-size",
		Runtime: "tvm",
		Kind:    Offsets,
		Forms:   workloads.FormMemories,
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
		Forms:   workloads.FormMemories,
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
		Forms:   workloads.FormMemories,
		Doc: "TVM USMP hill_climb: up to 500 first-fit passes over orders perturbed by swapping " +
			"conflicting buffers near the top, glibc rand_r seed 0; stops at LB_load",
		Params: append(slices.Clip(alignDoc), workloads.ParamDoc{Name: "workers", Default: "0",
			Doc: "lanes running passes at once, 0 for GOMAXPROCS (a membench extension; the plan is the same for any)"}),
		New: func(args *workloads.Args) (Strategy, error) {
			a, err := tvmAlignment("tvm-hill-climb", args)
			if err != nil {
				return nil, err
			}
			w := args.Int64("workers", 0)
			if w < 0 {
				return nil, workloads.Usagef("tvm-hill-climb: parameter workers=%d: want 0 or more", w)
			}
			return tvmHillClimb{align: a, maxPairs: usmpListPairs, workers: int(min(w, math.MaxInt32))}, nil
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
	pools usmpPools
	// sym: j is in i's list iff i is in j's (newUSMPGraph's graphs).
	sym bool
	// spans and tasks, where the conflicts are lifetimes that overlap
	// (newUSMPGraph's graphs): buffer i is tasks[i] in a kernel.CompIndex
	// over spans. nil: lists only.
	spans *kernel.TaskSpans
	tasks []kernel.Task
	// deg[i] is the length of i's list, where newUSMPGraph left the lists
	// out (start and nbr nil: more than its maxPairs conflicting pairs);
	// the lists are then the overlapping spans.
	deg []int32
}

// lists reports whether g keeps its conflict lists.
func (g *usmpGraph) lists() bool { return g.start != nil }

// usmpPools are USMP's pools: each buffer's one pool candidate, a memory
// space of the problem, and each pool's size hint.
type usmpPools struct {
	// of[i] is buffer i's pool; nil: every buffer in pool 0.
	of []int
	// hint[m] is pool m's size_hint_bytes, 0 for unbounded
	// (kUnrestrictedPoolSizeHint); nil: every pool unbounded.
	hint []int64
	// names are the pools' names, for errors.
	names []string
}

// newUSMPPools returns p's memory spaces as USMP pools.
func newUSMPPools(p *workloads.Problem) usmpPools {
	if p.Forms()&workloads.FormMemories == 0 {
		return usmpPools{}
	}
	u := usmpPools{of: p.Spaces, hint: make([]int64, len(p.Memories)), names: make([]string, len(p.Memories))}
	for m, mem := range p.Memories {
		u.hint[m], u.names[m] = mem.Capacity, mem.Name
	}
	return u
}

// n returns the number of pools.
func (u usmpPools) n() int { return max(len(u.hint), 1) }

// poolOf returns buffer i's pool.
func (u usmpPools) poolOf(i int32) int {
	if u.of == nil {
		return 0
	}
	return u.of[i]
}

// fits is GreedyBase::IsValidPlacement: a buffer of the given size at
// offset off stays within pool m's size hint.
func (u usmpPools) fits(m int, off, size int64) bool {
	return u.hint == nil || u.hint[m] == 0 || off+size <= u.hint[m]
}

// exceeded is USMP's error for a buffer no pool candidate holds.
// name is the planner's, i the buffer's index and size its size.
func (u usmpPools) exceeded(name string, i int32, size int64) error {
	m := u.poolOf(i)
	return fmt.Errorf("%s: buffer %d (%d bytes): TVM USMP Error: the space available in the provided pools exceeded "+
		"(pool %q, size hint %d bytes). Please increase the size_hints for memory pools",
		name, i, size, u.names[m], u.hint[m])
}

// postSort is PostSortAllocation's choice for a buffer of the given size
// in pool m, its one candidate, given the aligned ends of the conflicts
// placed before it in that pool, in conflict-list order: the pool is a
// candidate at 0 if the buffer fits there; a conflict whose end leaves
// room raises the offset to that end, re-admitting the pool (at 0 and
// then that end) if an earlier conflict dropped it; one that leaves no
// room drops the pool. It reports false where the pool ends dropped.
func (u usmpPools) postSort(m int, size int64, ends []int64) (int64, bool) {
	in := u.fits(m, 0, size)
	var off int64
	for _, next := range ends {
		if !u.fits(m, next, size) {
			in = false
			continue
		}
		if !in {
			in, off = true, 0
		}
		off = max(off, next)
	}
	return off, in
}

// tight places buffer i of bufs where the highest aligned end of its
// conflicts leaves no room in its pool: it gives PostSortAllocation's
// choice (postSort) over the conflicts placed before it in its pool, in
// their conflict-list order (by first task, then index: newUSMPGraph's
// lists), which can still place it in a gap below a conflict that dropped
// the pool. It reports false where USMP fails, and where USMP would place
// the buffer over one of those conflicts.
func (u usmpPools) tight(bufs []workloads.Buffer, offsets []int64, placed []bool, i int32, align int64) (int64, bool) {
	b, m := bufs[i], u.poolOf(i)
	var conf []int32
	for j := range bufs {
		c := bufs[j]
		if placed[j] && u.poolOf(int32(j)) == m && c.First <= b.Last && b.First <= c.Last {
			conf = append(conf, int32(j))
		}
	}
	slices.SortFunc(conf, func(x, y int32) int {
		return cmp.Or(cmp.Compare(bufs[x].First, bufs[y].First), cmp.Compare(x, y))
	})
	ends := make([]int64, len(conf))
	for k, j := range conf {
		ends[k] = AlignUp(offsets[j]+bufs[j].Size, align)
	}
	off, in := u.postSort(m, b.Size, ends)
	if !in {
		return 0, false
	}
	for _, j := range conf {
		if c := bufs[j]; b.Size > 0 && c.Size > 0 && off < offsets[j]+c.Size && offsets[j] < off+b.Size {
			return 0, false
		}
	}
	return off, true
}

// footprints returns the plan of offsets with a footprint per pool where
// there are several pools or a size hint (Plan.Footprints).
func (u usmpPools) plan(bufs []workloads.Buffer, offsets []int64) *Plan {
	if u.hint == nil {
		return &Plan{Offsets: offsets, Footprint: Footprint(bufs, offsets)}
	}
	plan := &Plan{Offsets: offsets, Footprints: make([]int64, u.n())}
	for i, b := range bufs {
		m := u.poolOf(int32(i))
		plan.Footprints[m] = max(plan.Footprints[m], offsets[i]+b.Size)
	}
	for _, f := range plan.Footprints {
		plan.Footprint += f
	}
	return plan
}

func (g *usmpGraph) conflicts(i int32) []int32 { return g.nbr[g.start[i]:g.start[i+1]] }

// transpose returns the graph whose list of i names the buffers whose
// lists in g name i.
func (g *usmpGraph) transpose() usmpGraph {
	n := len(g.size)
	t := usmpGraph{start: make([]int32, n+1), nbr: make([]int32, len(g.nbr))}
	for _, j := range g.nbr {
		t.start[j+1]++
	}
	for i := range n {
		t.start[i+1] += t.start[i]
	}
	fill := slices.Clone(t.start[:n])
	for i := range n {
		for _, j := range g.conflicts(int32(i)) {
			t.nbr[fill[j]] = int32(i)
			fill[j]++
		}
	}
	return t
}

// usmpListPairs is the most conflicting pairs for which tvm-hill-climb
// keeps USMP's conflict lists (as the other planners that store a
// conflict graph, DESIGN): past it the swaps' candidates come from the
// lifetimes themselves (usmpPicks.gatherSpans) and a pass's changes are
// spread over time (usmpPass.tt), with the same result.
const usmpListPairs = 1 << 22

// newUSMPGraph builds the conflict graph of bufs: i and j conflict iff they
// are live at a common task. It lists the conflicts only up to maxPairs
// conflicting pairs (usmpGraph.deg).
func newUSMPGraph(ctx context.Context, name string, bufs []workloads.Buffer, align int64, pools usmpPools, maxPairs int64) (*usmpGraph, error) {
	if err := kernel.RecordError(name, bufs); err != nil {
		return nil, err
	}
	n := len(bufs)
	if n > math.MaxInt32/2 {
		return nil, fmt.Errorf("%s: %d buffers is too many", name, n)
	}
	g := &usmpGraph{size: make([]int64, n), name: make([]string, n), align: max(align, 1), pools: pools, sym: true}
	for i, b := range bufs {
		g.size[i] = b.Size
		g.name[i] = strconv.Itoa(b.ID)
	}
	g.spans = kernel.NewTaskSpans(bufs, false)
	g.tasks = make([]kernel.Task, n)
	for i, b := range bufs {
		g.tasks[i] = g.spans.TaskOf(i, b.Size)
	}
	deg := usmpDegrees(bufs)
	var total int64
	for _, d := range deg {
		total += int64(d)
	}
	// The lists are indexed by int32.
	if total/2 > min(maxPairs, math.MaxInt32/2) {
		g.deg = deg
		return g, nil
	}
	g.start = make([]int32, n+1)
	for i := range n {
		g.start[i+1] = g.start[i] + deg[i]
	}
	// In order of (First, index), a buffer conflicts with the ones after it
	// that start no later than its last task: a run of the next ones.
	byFirst := kernel.ByFirst(bufs)
	g.nbr = make([]int32, total)
	fill := slices.Clone(g.start[:n])
	for a := range n {
		if a%kernel.CtxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		i := byFirst[a]
		last := bufs[i].Last
		for _, j := range byFirst[a+1:] {
			if bufs[j].First > last {
				break
			}
			g.nbr[fill[i]] = j
			fill[i]++
			g.nbr[fill[j]] = i
			fill[j]++
		}
	}
	return g, nil
}

// usmpDegrees returns each buffer's number of conflicts: n-1 less those
// that start after it ends and those that end before it starts (binary
// searches).
func usmpDegrees(bufs []workloads.Buffer) []int32 {
	n := len(bufs)
	firsts := make([]int, n)
	lasts := make([]int, n)
	for i, b := range bufs {
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
	return deg
}

// degrees returns the length of every conflict list.
func (g *usmpGraph) degrees() []int32 {
	if !g.lists() {
		return g.deg
	}
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

// usmpGreedy is GreedyBase::PostSortAllocation, step by step over the
// conflict lists: each buffer starts at 0 in its pool if it fits there;
// each conflict placed before it in the same pool, in list order, either
// raises that to the conflict's aligned end, re-admitting the pool if a
// conflict before dropped it, or, where the buffer would overflow the
// pool's size hint there, drops the pool. A buffer whose pool is dropped
// at the end is USMP's error. (The re-admission can put the buffer over
// the conflict that dropped the pool: usmpGreedyIntervals refuses that
// case; this is the reference it is tested against.)
func usmpGreedy(ctx context.Context, g *usmpGraph, order []int32) ([]int64, error) {
	n := len(order)
	pos := make([]int32, n)
	for q, i := range order {
		pos[i] = int32(q)
	}
	offsets := make([]int64, n)
	var ends []int64
	for q, i := range order {
		if q%kernel.CtxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		m := g.pools.poolOf(i)
		ends = ends[:0]
		for _, j := range g.conflicts(i) {
			if pos[j] < int32(q) && g.pools.poolOf(j) == m {
				ends = append(ends, AlignUp(offsets[j]+g.size[j], g.align))
			}
		}
		off, in := g.pools.postSort(m, g.size[i], ends)
		if !in {
			return nil, g.pools.exceeded("usmp", i, g.size[i])
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
	pools := newUSMPPools(p)
	offsets, err := usmpGreedyIntervals(ctx, t.Name(), p.Buffers, align, t.byConflicts, pools)
	if err != nil {
		return nil, err
	}
	return pools.plan(p.Buffers, offsets), nil
}

// usmpGreedyIntervals is usmpGreedy on the conflict graph of bufs without
// building it: the number of conflicts of a buffer is n-1 less those that
// start after it ends and those that end before it starts (binary
// searches), and "the highest aligned end among placed conflicting
// buffers" is a range maximum over time, where placing a buffer raises
// every task of its lifetime to its aligned end (a segment tree). O(n log
// n) where the graph has up to n^2 edges. With several pools each has its
// own tree; a buffer whose highest conflict end leaves no room in its
// pool goes through PostSortAllocation's walk of its conflicts in list
// order (usmpPools.tight, O(n log n) for that buffer): USMP's error, or a
// gap below the conflict that dropped the pool where a later conflict
// re-admits it; where that re-admission would put the buffer over a
// conflict, an invalid plan, it is refused with USMP's error too.
func usmpGreedyIntervals(ctx context.Context, name string, bufs []workloads.Buffer, align int64, byConflicts bool, pools usmpPools) ([]int64, error) {
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
	for i, b := range bufs {
		size[i], names[i] = b.Size, strconv.Itoa(b.ID)
	}
	deg := usmpDegrees(bufs)
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
	trees := make([]*chmaxTree, pools.n())
	offsets := make([]int64, n)
	var placed []bool // with size hints: the buffers placed so far
	if pools.hint != nil {
		placed = make([]bool, n)
	}
	for k, it := range items {
		if k%kernel.CtxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		m := pools.poolOf(it.i)
		tr := trees[m]
		if tr == nil {
			tr = newChmaxTree(int(ts.Tasks()))
			trees[m] = tr
		}
		off := tr.max(it.lo, it.hi)
		if !pools.fits(m, off, it.size) {
			var ok bool
			if off, ok = pools.tight(bufs, offsets, placed, it.i, align); !ok {
				return nil, pools.exceeded(name, it.i, it.size)
			}
		}
		if placed != nil {
			placed[it.i] = true
		}
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
// at least as high, which every query through it also reads). A node's
// tag and top lie side by side, and so do siblings: a query reads a
// path's nodes and their siblings, mostly in the same cache lines.
//
// A tree may hold several such arrays (slots), the values of a node for
// every slot side by side: the hill climb's passes in lockstep on a lane
// each have a slot of the lane's tree, and ask it about the same ranges
// one after the other (usmpPass.keptAt), so that the passes after the
// first mostly find the nodes in the cache.
type chmaxTree struct {
	leaves int32
	w      int32 // the number of slots
	node   []chmaxNode
}

type chmaxNode struct{ tag, top int64 }

// newChmaxTree returns a tree over points 0..n-1. The leaves are rounded
// up to a power of two, so that every node covers a run of points.
func newChmaxTree(n int) *chmaxTree { return newChmaxSlots(n, 1) }

// newChmaxSlots returns a tree of w slots over points 0..n-1.
func newChmaxSlots(n, w int) *chmaxTree {
	leaves := 1
	for leaves < n {
		leaves *= 2
	}
	return &chmaxTree{leaves: int32(leaves), w: int32(w), node: make([]chmaxNode, 2*leaves*w)}
}

// raise lifts points l..r (inclusive) to at least v.
func (t *chmaxTree) raise(l, r int32, v int64) { t.raiseIn(0, l, r, v) }

// max returns the largest value of points l..r (inclusive).
func (t *chmaxTree) max(l, r int32) int64 { return t.maxIn(0, l, r) }

// raiseIn is raise in slot s.
func (t *chmaxTree) raiseIn(s, l, r int32, v int64) {
	w := t.w
	for a, b := l+t.leaves, r+t.leaves+1; a < b; a, b = a>>1, b>>1 {
		if a&1 == 1 {
			nd := &t.node[a*w+s]
			nd.tag, nd.top = max(nd.tag, v), max(nd.top, v)
			a++
		}
		if b&1 == 1 {
			b--
			nd := &t.node[b*w+s]
			nd.tag, nd.top = max(nd.tag, v), max(nd.top, v)
		}
	}
	// The two leaf-to-root paths meet at the range's common ancestor and
	// share every node above it: walk them together until they meet.
	x, y := l+t.leaves, r+t.leaves
	for ; x != y; x, y = x>>1, y>>1 {
		nx, ny := &t.node[x*w+s], &t.node[y*w+s]
		nx.top, ny.top = max(nx.top, v), max(ny.top, v)
	}
	for ; x >= 1; x >>= 1 {
		nx := &t.node[x*w+s]
		nx.top = max(nx.top, v)
	}
}

// reset sets every point of every slot back to 0.
func (t *chmaxTree) reset() { clear(t.node) }

// maxIn is max in slot s.
func (t *chmaxTree) maxIn(s, l, r int32) int64 {
	w := t.w
	var m int64
	for a, b := l+t.leaves, r+t.leaves+1; a < b; a, b = a>>1, b>>1 {
		if a&1 == 1 {
			m = max(m, t.node[a*w+s].top)
			a++
		}
		if b&1 == 1 {
			b--
			m = max(m, t.node[b*w+s].top)
		}
	}
	x, y := l+t.leaves, r+t.leaves
	for ; x != y; x, y = x>>1, y>>1 {
		m = max(m, t.node[x*w+s].tag, t.node[y*w+s].tag)
	}
	for ; x >= 1; x >>= 1 {
		m = max(m, t.node[x*w+s].tag)
	}
	return m
}

type tvmHillClimb struct {
	align    int64 // workspace_byte_alignment
	maxPairs int64 // the conflict lists are kept up to this many pairs
	workers  int   // lanes running passes at once (usmpSpec), 0 for GOMAXPROCS
}

// usmpMaxWorkers bounds the lanes: each runs passes that assume every
// attempt before them is rejected.
const usmpMaxWorkers = 8

func (tvmHillClimb) Name() string { return "tvm-hill-climb" }

func (t tvmHillClimb) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	align, err := runtimeAlignment("tvm-hill-climb", t.align, p.Alignment)
	if err != nil {
		return nil, err
	}
	pools := newUSMPPools(p)
	g, err := newUSMPGraph(ctx, "tvm-hill-climb", p.Buffers, align, pools, t.maxPairs)
	if err != nil {
		return nil, err
	}
	workers := t.workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	offsets, err := usmpHillClimb(ctx, g, p.LoadBound(), min(workers, usmpMaxWorkers))
	if err != nil {
		return nil, err
	}
	return pools.plan(p.Buffers, offsets), nil
}

// usmpMaxAttempts is hill_climb.cc's _max_attempts.
const usmpMaxAttempts = 500

// usmpSureReject is the first attempt from which hill_climb.cc's chance
// of accepting a larger total, 50*(total-total_size)/total/attempts
// percent in integer arithmetic, is 0: the quotient by total is at most
// 49, as total_size > 0.
const usmpSureReject = 50

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

// usmpHillClimb is HillClimbAllocator::PlanMemory; desired is its
// memory_pressure (over all pools). A pass places each buffer in its pool
// (USMP's greedy in hill_climb.cc): the conflicts placed before it in the
// same pool are walked by offset, and one where the buffer would pass the
// pool's size hint drops the pool for good; a buffer so left without a
// pool "could not fit" and sits nowhere (offset 0, in no pool's size). A
// pass's total is the sum of its pools' sizes. A pass where something
// could not fit is accepted only as the first (and then leaves the total
// unset, so the next is a first too); the others as with one pool. The
// buffers reaching the top are those reaching their own pool's size.
// Where the result keeps a buffer in no pool, that is USMP's error.
//
// Passes are incremental (usmpPass): a buffer is placed again only where
// its inputs may have changed since the pool the pass starts from. The
// second-level swap candidates are counted by position (usmpPicks) rather
// than listed and sorted. Both give what TVM's full passes and sorted
// lists give; the test-only refUSMPHillClimb is the literal form they are
// checked against.
//
// The passes of the next attempts run beside the current one (on the
// other workers' lanes, and in lockstep with it on its own), as they
// would be were each attempt before them rejected after one random draw
// (usmpSpec): a pass is a function of its order and its stop alone, so
// one whose order and stop turn out to be the real ones is the real
// pass, and the others are thrown away. The result is the same for any
// number of workers.
func usmpHillClimb(ctx context.Context, g *usmpGraph, desired int64, workers int) ([]int64, error) {
	offsets, _, err := usmpClimbAhead(ctx, g, desired, workers)
	return offsets, err
}

// usmpClimbAhead is usmpHillClimb that also reports how many passes run
// ahead were the real ones.
func usmpClimbAhead(ctx context.Context, g *usmpGraph, desired int64, workers int) ([]int64, int, error) {
	n := len(g.size)
	if n == 0 {
		return []int64{}, 0, nil
	}
	c := &usmpClimb{g: g, order: usmpOrder(g.size, g.name, g.degrees(), false), pos: make([]int32, n),
		swapI1: -1, swapI2: -1, picks: newUSMPPicks(n), increase: errors.New("tvm-hill-climb: TVM USMP Error: Please increase the size_hints for memory pools")}
	for q, i := range c.order {
		c.pos[i] = int32(q)
	}
	sp := newUSMPSpec(ctx, g, max(workers, 1))
	defer sp.close()
	hinted := slices.ContainsFunc(g.pools.hint, func(h int64) bool { return h != 0 })
	var totalSize int64
	// pool is the pool of the last accepted (or rolled back) pass, placed
	// in poolOrder; the next pass starts from it.
	var pool, rollback, result usmpAlloc
	var poolOrder, rollbackOrder []int32
	for attempts := 0; attempts < usmpMaxAttempts; attempts++ {
		rollback, rollbackOrder = pool, poolOrder
		stop := c.stopAt(attempts, totalSize, hinted)
		res, err := sp.pass(ctx, c, attempts, stop, usmpBase{alloc: rollback, order: rollbackOrder, totalSize: totalSize, hinted: hinted})
		if err != nil {
			return nil, 0, err
		}
		pool = res.alloc

		var poolSize []int64
		var total int64
		accept, drew := false, false
		if res.stopped {
			c.rnd.next() // the acceptance draw, which fails
			drew = true
		} else {
			poolSize = c.high(pool)
			some := false
			for _, h := range poolSize {
				if h >= 0 {
					total, some = total+h, true
				}
			}
			if !some {
				return nil, 0, c.increase
			}
			accept = totalSize == 0
			if !accept && !pool.unfit {
				accept = totalSize > total
				if !accept {
					// size_t arithmetic, as in TVM.
					drew = true
					accept = int64(c.rnd.next()%100) < int64(int32(50*uint64(total-totalSize)/uint64(total)/uint64(attempts)))
				}
			}
		}
		if accept {
			result = pool
			poolOrder = slices.Clone(c.order)
			if !pool.unfit {
				totalSize = total
				if totalSize <= desired {
					break
				}
			}
		} else {
			pool, poolOrder = rollback, rollbackOrder
			if drew {
				if next := sp.rejected(attempts, c); next != nil {
					// The next attempt's state, found beside this pass.
					sp.recycle(c)
					c = next
					continue
				}
			}
			c.swap(c.swapI2, c.swapI1)
			poolSize = c.high(pool)
		}
		// The passes run ahead assumed a rejection after one draw.
		sp.drop(c)
		if err := c.choose(pool, poolSize); err != nil {
			return nil, 0, err
		}
	}
	for i, nope := range result.nope {
		if nope {
			return nil, 0, g.pools.exceeded("tvm-hill-climb", int32(i), g.size[i])
		}
	}
	return result.off, sp.used, nil
}

// usmpClimb is the hill climb's state between passes: the order, the
// random numbers and the last recorded swap.
type usmpClimb struct {
	g          *usmpGraph
	order, pos []int32
	rnd        randR
	// swapI1, swapI2: the positions of the last recorded swap, which a
	// rejection undoes (TVM does so even when the attempt before made no
	// swap); swapped: the last attempt ended with a swap.
	swapI1, swapI2 int32
	swapped        bool
	picks          *usmpPicks // shared by the clones, used one at a time
	increase       error
}

func (c *usmpClimb) swap(i1, i2 int32) {
	if i1 == i2 {
		return
	}
	b1, b2 := c.order[i1], c.order[i2]
	c.order[i1], c.order[i2] = b2, b1
	c.pos[b1], c.pos[b2] = i2, i1
}

// stopAt returns the total at which the pass of attempt attempts may
// stop (usmpPass.run), 0 for none. From attempt usmpSureReject on, a pass
// that fits everything and is no smaller than the last accepted one is
// rejected (its chance is 0), so a pass that a swap began may stop once
// its pools' sizes reach totalSize: its allocation is thrown away.
// Without size hints nothing can fail to fit.
func (c *usmpClimb) stopAt(attempts int, totalSize int64, hinted bool) int64 {
	if c.swapped && attempts >= usmpSureReject && totalSize > 0 && !hinted {
		return totalSize
	}
	return 0
}

// high returns each pool's size in a, -1 for a pool no buffer is in.
func (c *usmpClimb) high(a usmpAlloc) []int64 { return c.g.poolSizes(a.off, a.nope) }

// poolSizes returns each pool's size where the buffers are at offsets
// off, those with nope set in no pool; -1 for a pool no buffer is in.
func (g *usmpGraph) poolSizes(off []int64, nope []bool) []int64 {
	h := make([]int64, g.pools.n())
	for m := range h {
		h[m] = -1
	}
	for i, o := range off {
		if !nope[i] {
			m := g.pools.poolOf(int32(i))
			h[m] = max(h[m], o+g.size[i])
		}
	}
	return h
}

// rejectOnce takes c past a rejection after one draw, with pool the
// pool rolled back to: the draw, the undone swap and the next swap.
func (c *usmpClimb) rejectOnce(pool usmpAlloc) error {
	c.rnd.next()
	c.swap(c.swapI2, c.swapI1)
	return c.choose(pool, c.high(pool))
}

// choose picks the next swap given the pool (of sizes poolSize) the
// attempt ended with: one of the buffers reaching their pool's top, by
// position, at random; a conflict of it placed before it (first level)
// and, mostly, one placed before such a conflict (second level), which
// swap places in the order.
func (c *usmpClimb) choose(pool usmpAlloc, poolSize []int64) error {
	g := c.g
	c.swapped = false
	var top []int32
	for q, i := range c.order {
		if !pool.nope[i] && pool.off[i]+g.size[i] == poolSize[g.pools.poolOf(i)] {
			top = append(top, int32(q))
		}
	}
	if len(top) == 0 {
		return c.increase
	}
	node := c.order[top[int(c.rnd.next())%len(top)]]

	picks := c.picks
	picks.fill(g, c.pos, c.order, node)
	if len(picks.first) == 0 {
		return nil
	}
	first := picks.first
	buf1 := first[int(c.rnd.next())%len(first)]
	buf2 := buf1
	stuck := !slices.ContainsFunc(first, func(b int32) bool { return b != buf1 }) && !picks.secondOther(c.pos[buf1])
	for buf2 == buf1 {
		if picks.total > 0 && c.rnd.next()%100 > 25 {
			buf2 = picks.second(int64(int(c.rnd.next()) % int(picks.total)))
		} else {
			buf2 = first[int(c.rnd.next())%len(first)]
		}
		if picks.total < 2 && len(first) < 2 || stuck {
			break
		}
	}
	if buf1 == buf2 {
		return nil
	}
	c.swapI1, c.swapI2 = c.pos[buf1], c.pos[buf2]
	c.swap(c.swapI1, c.swapI2)
	c.swapped = true
	return nil
}

// usmpBase is what the passes of a chain start from: the pool (placed in
// order; nil before the first pass) and what a stop depends on.
type usmpBase struct {
	alloc     usmpAlloc
	order     []int32
	totalSize int64
	hinted    bool
}

// usmpResult is a pass's result: its allocation, or that it stopped.
type usmpResult struct {
	alloc   usmpAlloc
	stopped bool
}

// usmpSpec runs the hill climb's passes on its lanes (usmpLane), as a
// chain: the pass of the current attempt and the passes of the attempts
// after it as they would be were each attempt before them rejected after
// one draw (the case of every attempt on idealloc/y-1 but the first): the
// same pool, the order with the swap undone and the next one made, the
// random numbers one draw on (usmpClimb.rejectOnce). Where the attempt is
// so rejected, the climb takes the state the next job assumed (rejected)
// and that job's pass is the real one; otherwise the chain is dropped
// and its passes cancelled. A lane takes up to groupSize consecutive
// attempts of the chain at once and runs their passes in lockstep
// (usmpLane.lockstep); a lane that finishes takes the next attempts at
// the chain's end.
//
// The passes look at the caller's context only through a flag that a
// watcher of its Done channel sets (usmpLaneCtx), and the climb looks at
// it once an attempt: a look from a pass that turns out to be thrown
// away would make the number of looks depend on timing, and several
// passes would each look once more after a cancellation.
type usmpSpec struct {
	g     *usmpGraph
	lanes []*usmpLane
	// running[k] is closed once lane k's last group has ended (nil: the
	// lane never ran).
	running   []chan struct{}
	groupSize int
	empty     *kernel.CompIndex // the lanes' empty index, shared
	// px: the prefix index of pxBase, the last base a group in lockstep
	// started from (prefix).
	px     *kernel.PrefixIndex
	pxBase usmpBase
	spare  [][2][]int32 // recycled orders (clone)
	chain  []*usmpJob
	ended  bool // the chain's last state has no next attempt
	used   int  // passes run ahead that were the real ones
	// cancelled is set once the caller's context is done; quit ends
	// its watcher.
	cancelled atomic.Bool
	quit      chan struct{}
}

// usmpCoarseShift: usmpPass.tc's blocks are usmpCoarse tasks.
const (
	usmpCoarseShift = 6
	usmpCoarse      = 1 << usmpCoarseShift
)

// usmpGroupSize is how many passes a lane runs in lockstep where it can
// (one unbounded pool, no conflict lists): the buffers all of them keep
// in the place the pool they start from gives are one round's, shared
// by all of them; on idealloc/y-1 four passes change about 3,500
// buffers between them, where each keeps about 41,000 up to its last
// query (eight ran no faster). Each pass holds two indexes of its own
// (about 50 MB on y-1), so the lanes together run at most usmpInFlight
// passes: with more workers, fewer in lockstep on each.
const (
	usmpGroupSize = 4
	usmpInFlight  = 8
)

// usmpLaneCtx is the context of a pass on a lane: done once its job is
// dropped or the caller's context is done (usmpSpec), and never looking
// at the caller's.
type usmpLaneCtx struct{ job, all *atomic.Bool }

func (usmpLaneCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (usmpLaneCtx) Done() <-chan struct{}       { return nil }
func (usmpLaneCtx) Value(any) any               { return nil }

func (c usmpLaneCtx) Err() error {
	if c.job.Load() || c.all.Load() {
		return context.Canceled
	}
	return nil
}

// usmpJob is a pass on a lane: its attempt, the state the climb has at
// its start (climb, derived from the job before's, from), its stop, and,
// once done is closed, its result.
type usmpJob struct {
	attempt     int
	climb, from *usmpClimb
	stop        int64
	dropped     atomic.Bool
	done        chan struct{}
	res         usmpResult
	err         error
}

func newUSMPSpec(ctx context.Context, g *usmpGraph, workers int) *usmpSpec {
	sp := &usmpSpec{g: g, lanes: make([]*usmpLane, workers), running: make([]chan struct{}, workers), groupSize: 1, quit: make(chan struct{})}
	if done := ctx.Done(); done != nil {
		go func() {
			select {
			case <-done:
				sp.cancelled.Store(true)
			case <-sp.quit:
			}
		}()
	}
	if g.spans != nil {
		sp.empty = kernel.NewCompIndex(g.spans)
		if g.spans.GatherByIDPays() {
			sp.empty.GatherByID()
		}
		if g.pools.of == nil && g.pools.hint == nil {
			sp.groupSize = max(1, min(usmpGroupSize, usmpInFlight/workers))
		}
	}
	return sp
}

// free returns a lane with no group running, -1 if none.
func (sp *usmpSpec) free() int {
	for k, r := range sp.running {
		if r == nil {
			return k
		}
		select {
		case <-r:
			return k
		default:
		}
	}
	return -1
}

// launch starts the passes of jobs, consecutive attempts from base, on
// lane k, and appends them to the chain.
func (sp *usmpSpec) launch(k int, jobs []*usmpJob, base usmpBase) {
	if sp.lanes[k] == nil {
		sp.lanes[k] = &usmpLane{}
	}
	l := sp.lanes[k]
	for _, j := range jobs {
		j.done = make(chan struct{})
	}
	var px *kernel.PrefixIndex
	if len(jobs) > 1 {
		px = sp.prefix(base)
	}
	r := make(chan struct{})
	sp.running[k] = r
	go func() {
		defer close(r)
		l.run(sp, jobs, base, px)
	}()
	sp.chain = append(sp.chain, jobs...)
}

// prefix returns the index of base's placements in base's order, for the
// lanes' rounds in lockstep (usmpLane.shared): made once for each base,
// which every group shares until a pass is accepted.
func (sp *usmpSpec) prefix(base usmpBase) *kernel.PrefixIndex {
	if sp.px == nil || &sp.pxBase.order[0] != &base.order[0] || &sp.pxBase.alloc.off[0] != &base.alloc.off[0] {
		g := sp.g
		at := make([]kernel.Comp, len(base.alloc.off))
		for i, o := range base.alloc.off {
			at[i] = kernel.Comp{Lo: o, Hi: AlignUp(o+g.size[i], g.align)}
		}
		sp.px, sp.pxBase = kernel.NewPrefixIndex(g.spans, base.order, at), base
	}
	return sp.px
}

// next returns the job of the attempt after last's, from the state last
// would leave after a rejection with one draw, or nil where there is
// none (and the chain has ended).
func (sp *usmpSpec) next(last *usmpJob, base usmpBase) *usmpJob {
	if last.attempt+1 >= usmpMaxAttempts {
		sp.ended = true
		return nil
	}
	next := sp.clone(last.climb)
	if next.rejectOnce(base.alloc) != nil {
		sp.ended = true
		return nil
	}
	return &usmpJob{attempt: last.attempt + 1, climb: next, from: last.climb, stop: next.stopAt(last.attempt+1, base.totalSize, base.hinted)}
}

// group returns first and the jobs of the attempts after it, up to
// groupSize in all, each from the state the one before would leave
// after a rejection with one draw.
func (sp *usmpSpec) group(first *usmpJob, base usmpBase) []*usmpJob {
	jobs := []*usmpJob{first}
	if base.totalSize == 0 {
		return jobs // before a total is accepted every pass is accepted
	}
	for len(jobs) < sp.groupSize && !sp.ended {
		j := sp.next(jobs[len(jobs)-1], base)
		if j == nil {
			break
		}
		jobs = append(jobs, j)
	}
	return jobs
}

// finish waits for job j.
func (sp *usmpSpec) finish(j *usmpJob) { <-j.done }

// drop cancels the chain's jobs and waits for the lanes; the orders of
// their states but keep (the climb's) are recycled.
func (sp *usmpSpec) drop(keep *usmpClimb) {
	for _, j := range sp.chain {
		j.dropped.Store(true)
	}
	for _, r := range sp.running {
		if r != nil {
			<-r
		}
	}
	for _, j := range sp.chain {
		if j.climb != keep {
			sp.recycle(j.climb)
		}
	}
	sp.chain, sp.ended = sp.chain[:0], false
}

// clone returns a copy of c with orders of its own, recycled ones where
// there are any: a fresh copy for each of the 500 attempts' jobs, each
// a quarter megabyte on idealloc/y-1, cost about a tenth of its time in
// copies to new pages and collections.
func (sp *usmpSpec) clone(c *usmpClimb) *usmpClimb {
	d := *c
	if k := len(sp.spare); k > 0 {
		d.order, d.pos = sp.spare[k-1][0], sp.spare[k-1][1]
		sp.spare = sp.spare[:k-1]
		copy(d.order, c.order)
		copy(d.pos, c.pos)
	} else {
		d.order, d.pos = slices.Clone(c.order), slices.Clone(c.pos)
	}
	return &d
}

// recycle takes the orders of c, a state nothing reads any more (no job
// in the chain, no pass running, not the climb's), for later clones; c
// keeps none.
func (sp *usmpSpec) recycle(c *usmpClimb) {
	if c.order != nil {
		sp.spare = append(sp.spare, [2][]int32{c.order, c.pos})
		c.order, c.pos = nil, nil
	}
}

// extend fills the free lanes with the attempts after the chain's last.
func (sp *usmpSpec) extend(base usmpBase) {
	if base.totalSize == 0 {
		return // before a total is accepted every pass is accepted
	}
	for !sp.ended && len(sp.chain) > 0 {
		k := sp.free()
		if k < 0 {
			return
		}
		first := sp.next(sp.chain[len(sp.chain)-1], base)
		if first == nil {
			return
		}
		sp.launch(k, sp.group(first, base), base)
	}
}

// pass returns the pass of attempt attempts from state c with the given
// stop, from base: the chain's first job where c is its state, else that
// of a new chain.
func (sp *usmpSpec) pass(ctx context.Context, c *usmpClimb, attempts int, stop int64, base usmpBase) (usmpResult, error) {
	if err := ctx.Err(); err != nil {
		return usmpResult{}, err
	}
	if len(sp.chain) == 0 || sp.chain[0].attempt != attempts || sp.chain[0].climb != c || sp.chain[0].stop != stop {
		sp.drop(c)
		sp.launch(sp.free(), sp.group(&usmpJob{attempt: attempts, climb: c, stop: stop}, base), base)
	} else {
		sp.used++
	}
	sp.extend(base)
	j := sp.chain[0]
	sp.finish(j)
	sp.chain = sp.chain[1:]
	if j.err != nil {
		// Only the caller's context ends the chain's first job.
		sp.drop(c)
		return usmpResult{}, ctx.Err()
	}
	sp.extend(base)
	return j.res, nil
}

// rejected returns, after attempt attempts, begun in state c, was
// rejected with one draw, the state the climb has at the start of the
// next attempt where the chain's next job assumed it (nil if none).
func (sp *usmpSpec) rejected(attempts int, c *usmpClimb) *usmpClimb {
	if len(sp.chain) > 0 && sp.chain[0].attempt == attempts+1 && sp.chain[0].from == c {
		return sp.chain[0].climb
	}
	return nil
}

// close drops the chain (the passes still running are not needed) and
// ends the watcher.
func (sp *usmpSpec) close() {
	sp.drop(nil)
	close(sp.quit)
}

// usmpLane runs groups of passes, one group at a time: a usmpPass for
// each pass of a group (made when first needed), and, for lockstep, the
// round (over base's kernel.PrefixIndex) of the buffers all of a group's
// passes keep in base's place.
type usmpLane struct {
	passes []*usmpPass
	shared *kernel.PrefixRound
	// tt and tc, without lists: the passes' trees of touches, slot k
	// pass k's (usmpPass.tt, tc).
	tt, tc *chmaxTree
	// order and info: base's order, and for each position the buffer
	// there as keptAt needs it, in lockstep without lists.
	order []int32
	info  []usmpAt
}

// run runs the passes of jobs from base and ends each job: one by one
// (usmpPass.run), or in lockstep where there are several.
func (l *usmpLane) run(sp *usmpSpec, jobs []*usmpJob, base usmpBase, px *kernel.PrefixIndex) {
	if l.tt == nil && !sp.g.lists() {
		d := int(sp.g.spans.Tasks())
		l.tt = newChmaxSlots(d, sp.groupSize)
		l.tc = newChmaxSlots((d+usmpCoarse-1)>>usmpCoarseShift, sp.groupSize)
	}
	for len(l.passes) < len(jobs) {
		l.passes = append(l.passes, newUSMPPass(sp.g, sp.empty, l.tt, l.tc, int32(len(l.passes))))
	}
	if l.tt != nil {
		// For the passes' touches (usmpPass.begin).
		l.tt.reset()
		l.tc.reset()
	}
	if len(jobs) == 1 {
		j := jobs[0]
		j.res, j.err = l.passes[0].run(usmpLaneCtx{job: &j.dropped, all: &sp.cancelled}, base.alloc, base.order, j.climb.order, j.stop)
		close(j.done)
		return
	}
	if l.shared == nil {
		l.shared = px.NewRound()
	} else {
		l.shared.Reset(px)
	}
	l.lockstep(sp, jobs, base)
}

// lockstep runs the passes of jobs (several; all from base, in one
// unbounded pool, without lists) position by position: each pass settles
// the buffer at a position (usmpPass.visit), then the buffer at that
// position in base's order counts as placed in the lane's shared round
// where every pass still running has it there in base's place, else the
// round skips the position (kernel.PrefixRound.Skip) and each such
// pass's buffer at the position goes into its own index (usmpPass.grp).
// The round places nothing: it holds base's placements in base's order
// (kernel.PrefixIndex, made once for each base, which every group shares
// until a pass is accepted), and a query at position q sees those below
// q it has not skipped, merging a node's new ranges only when a query
// reads the node. On idealloc/y-1 a CompIndex rebuilt for each group
// placed about 43,000 buffers a group (5.4M over a run), most of the
// placements. A pass's first fit walks both at once
// (kernel.CompIndex.FirstFitWindowsPrefix), so it sees its own placements
// up to the position, as alone. A pass that stops, or is dropped, leaves
// the lockstep there.
func (l *usmpLane) lockstep(sp *usmpSpec, jobs []*usmpJob, base usmpBase) {
	g := sp.g
	l.order = nil
	if !g.lists() {
		l.order = base.order
		l.info = slices.Grow(l.info[:0], len(base.order))[:len(base.order)]
		for q, i := range base.order {
			t := &g.tasks[i]
			l.info[q] = usmpAt{a: t.A, b: t.B, size: g.size[i], end: base.alloc.off[i] + g.size[i]}
		}
	}
	type live struct {
		ps  *usmpPass
		job *usmpJob
		ctx context.Context // converted once: visit takes it as an interface
	}
	active := make([]live, len(jobs))
	for k, j := range jobs {
		ps := l.passes[k]
		ps.grp = l
		ps.begin(base.alloc, base.order, j.climb.order, j.stop)
		active[k] = live{ps, j, usmpLaneCtx{job: &j.dropped, all: &sp.cancelled}}
	}
	end := func(a live, res usmpResult, err error) {
		a.ps.grp = nil
		if res.alloc.off == nil {
			a.ps.spare = a.ps.cur // not handed on: the next pass reuses it
		}
		a.job.res, a.job.err = res, err
		close(a.job.done)
	}
	n := len(base.order)
	for q := 0; q < n && len(active) > 0; q++ {
		kept := active[:0]
		for _, a := range active {
			stopped, err := a.ps.visit(a.ctx, q)
			switch {
			case err != nil:
				end(a, usmpResult{}, err)
			case stopped:
				end(a, usmpResult{stopped: true}, nil)
			default:
				kept = append(kept, a)
			}
		}
		active = kept
		all := true
		for _, a := range active {
			if a.ps.moved {
				all = false
				break
			}
		}
		if all {
			continue
		}
		l.shared.Skip(int32(q))
		for _, a := range active {
			a.ps.held = append(a.ps.held, a.ps.order[q])
		}
	}
	for _, a := range active {
		end(a, usmpResult{alloc: a.ps.cur}, nil)
	}
}

// usmpAlloc is one hill-climb pass's allocation: offsets, the buffers
// left in no pool, and whether there are any.
type usmpAlloc struct {
	off   []int64
	nope  []bool
	unfit bool
}

// usmpPass runs the hill climb's passes incrementally. A buffer's place
// depends only on the set of conflicts placed before it in its pool and
// their places: the walk by offset ends at the lowest of 0 and their
// aligned ends that clears them all, whatever the order among equal
// offsets, and the pool drops iff one of those ends leaves no room. So a
// pass keeps the place in the pool it starts from (base, placed in its
// own order) of every buffer but those whose position differs (moved),
// their conflicts (whose sets of earlier conflicts may differ),
// and the conflicts of a buffer whose place or pool changed in this
// pass. Of those, a buffer in an unbounded pool keeps its place too when
// every conflict that moved, joined or left its set did so at or above
// the buffer's old end, before and after: nothing below that end is
// freed or taken, and no new end below it appears (the walk's result is
// the lowest end that clears; one above the old place cannot be lower).
// The others are placed again. In one unbounded pool, one that did not
// move in the order walks only where it can land below its old place o:
// every offset y < o was blocked by a conflict placed before it, and y is
// free now only if all its blockers are gone from there; a blocker is a
// closed range [lo, hi] with hi > y and y+size > lo, so y lies in a window
// [lo-size+1, hi) of a range that a conflict held in the last pass and
// left (one placed elsewhere this pass, or moved by a swap: rm). The walk
// jumps over the offsets below o outside those windows
// (kernel.CompIndex.FirstFitWindows) and goes on from o as before.
// The caller starts each pass from the last accepted (or rolled-back)
// pool, so that a pass after a rejection differs from it by one swap. The
// index of a pass's placed buffers is reset, not rebuilt, each pass
// (kernel.CompIndex.Reset), and the buffers kept in place go into it only
// when a later one must be placed again (held); in lockstep with other
// passes (usmpLane.lockstep) those all of them keep are the lane's
// shared round's instead. A usmpPass is one pass of a lane of usmpSpec:
// its state is its own (in lockstep, its slot of the lane's tree of
// touches), and it reads the base, the graph and, in lockstep, the
// lane's shared round only, so lanes run at once.
type usmpPass struct {
	g          *usmpGraph
	order, pos []int32 // the pass's order, copied in by run
	// rev lists, for each buffer, the buffers whose lists name it (the
	// lists themselves where the graph is symmetric).
	rev   usmpGraph
	last  usmpAlloc // the pool the pass starts from
	dirty int32     // the lowest position whose buffer differs from last's order
	swaps []int32   // the buffers whose positions differ from last's order
	mark  []int32   // mark[i] == epoch: buffer i's set of conflicts may differ
	// low[i], where mark[i] == epoch: the lowest offset of a conflict of
	// buffer i that moved, joined or left, before or after; -1 if i moved.
	low   []int64
	epoch int32
	// tt, without lists (g.deg): the touches spread over time, each
	// buffer that moved raising its lifetime's points to MaxInt64 less
	// the offset it moved to or from; a buffer is marked where a point of
	// its lifetime is raised, low being MaxInt64 less the highest. mark
	// then flags only the buffers a swap moved.
	tt   *chmaxTree
	slot int32 // the pass's slot of tt and tc, its lane's
	// tc: as tt over blocks of usmpCoarse tasks, each raise lifting the
	// blocks its span meets. It bounds tt's maximum over a span from
	// above, so that where it shows no touch, or none below a buffer's
	// end, the buffer keeps its place without a query of tt, whose nodes
	// on y-1 were the most missed reads of the cache; tc fits in it.
	tc *chmaxTree
	// With tt, the touches since the pass began: the span of tasks they
	// cover (tA..tB, empty while tA > tB) and their lowest offset
	// (tLo). A buffer outside that span is not marked, and one in an
	// unbounded pool that ends by tLo keeps its place: neither needs a
	// query of tt.
	tA, tB int32
	tLo    int64
	plain  bool // one unbounded pool: every placed conflict counts
	comps  []kernel.Comp
	// With g.spans: an empty index over them (shared by the lanes, read
	// only), and a pass's index of each pool's placed buffers.
	empty *kernel.CompIndex
	ix    []*kernel.CompIndex
	fresh []bool // fresh[m]: ix[m] holds this pass's placements
	// held: the buffers the pass kept in place and has not yet put in
	// the index; placeSpans puts them there before it asks, so that
	// those after the last buffer placed again never go in.
	held []int32
	// rm, in one unbounded pool past the first pass: the ranges the
	// buffers placed elsewhere this pass (and those swaps moved) held in
	// the last pass, for windows; gone[i] == epoch: i's range is in rm.
	rm     *kernel.CompIndex
	rmLive bool // rm is in use this pass
	gone   []int32
	wins   []kernel.Comp
	deg    []int32 // g.degrees()
	high   []int64 // run's pool sizes so far, where it may stop
	// The pass under way (begin): its allocation so far, whether it
	// places everything (no pool to start from), its stop, the sum of
	// high, and the work since ctx was last polled.
	cur  usmpAlloc
	full bool
	// spare: the allocation of a pass that stopped or was dropped, which
	// the next begin takes rather than a fresh one (a pass's result is
	// the climb's, and never reused).
	spare     usmpAlloc
	stop, sum int64
	work      int
	// moved: the buffer visit last settled is not where the pool the
	// pass starts from has it, or not at the same position.
	moved bool
	// grp, while the pass runs in lockstep with others on its lane: the
	// buffers they all keep in base's place are grp.shared's, not in
	// ix, which then holds this pass's other placements; the lane fills
	// held.
	grp *usmpLane
}

// newUSMPPass returns a lane for g's passes; empty is an empty index
// over g.spans where g has them, and, without lists, slot of tt is the
// pass's.
func newUSMPPass(g *usmpGraph, empty *kernel.CompIndex, tt, tc *chmaxTree, slot int32) *usmpPass {
	n := len(g.size)
	ps := &usmpPass{g: g, order: make([]int32, n), pos: make([]int32, n), rev: *g, mark: make([]int32, n), low: make([]int64, n),
		plain: g.pools.of == nil && g.pools.hint == nil, empty: empty}
	for q := range ps.order {
		ps.order[q] = -1
	}
	ps.deg = g.degrees()
	if !g.lists() {
		ps.tt, ps.tc, ps.slot = tt, tc, slot
	} else if !g.sym {
		ps.rev = g.transpose()
	}
	if g.spans != nil {
		ps.ix = make([]*kernel.CompIndex, g.pools.n())
		ps.fresh = make([]bool, g.pools.n())
	}
	return ps
}

// start makes the lane's order order and its pass start from base,
// placed in baseOrder (nil before the first pass): the buffers at
// positions where the two orders differ are those the pass must move.
func (ps *usmpPass) start(base usmpAlloc, baseOrder, order []int32) {
	for q, i := range order {
		if ps.order[q] != i {
			ps.order[q], ps.pos[i] = i, int32(q)
		}
	}
	n := int32(len(order))
	ps.last, ps.dirty, ps.swaps = base, n, ps.swaps[:0]
	if base.off == nil {
		return
	}
	for q, i := range order {
		if baseOrder[q] != i {
			ps.dirty = min(ps.dirty, int32(q))
			ps.swaps = append(ps.swaps, i)
		}
	}
}

// touch marks the buffers whose lists name buffer i, which moved to or
// from offset lo.
func (ps *usmpPass) touch(i int32, lo int64) {
	if ps.tt != nil {
		t := &ps.g.tasks[i]
		ps.tt.raiseIn(ps.slot, t.A, t.B, math.MaxInt64-lo)
		ps.tc.raiseIn(ps.slot, t.A>>usmpCoarseShift, t.B>>usmpCoarseShift, math.MaxInt64-lo)
		ps.tA, ps.tB, ps.tLo = min(ps.tA, t.A), max(ps.tB, t.B), min(ps.tLo, lo)
		return
	}
	for _, j := range ps.rev.conflicts(i) {
		if ps.mark[j] != ps.epoch {
			ps.mark[j], ps.low[j] = ps.epoch, lo
		} else {
			ps.low[j] = min(ps.low[j], lo)
		}
	}
}

// run returns the pass's allocation in order, from base placed in
// baseOrder (start). Where stop > 0 (no pool has a size hint), it stops
// once the buffers placed so far reach pools whose sizes sum to stop or
// more, and reports so.
func (ps *usmpPass) run(ctx context.Context, base usmpAlloc, baseOrder, order []int32, stop int64) (usmpResult, error) {
	ps.begin(base, baseOrder, order, stop)
	for q := range ps.order {
		stopped, err := ps.visit(ctx, q)
		if err != nil {
			ps.spare = ps.cur
			return usmpResult{}, err
		}
		if stopped {
			ps.spare = ps.cur
			return usmpResult{stopped: true}, nil
		}
	}
	return usmpResult{alloc: ps.cur}, nil
}

// begin readies the pass run makes, from base placed in baseOrder, in
// order, with stop: its allocation (ps.cur) starts as base's.
func (ps *usmpPass) begin(base usmpAlloc, baseOrder, order []int32, stop int64) {
	ps.start(base, baseOrder, order)
	n := len(ps.order)
	ps.stop, ps.sum, ps.work = stop, 0, 0
	if stop > 0 {
		if len(ps.high) < ps.g.pools.n() {
			ps.high = make([]int64, ps.g.pools.n())
		}
		clear(ps.high)
	}
	cur := ps.spare
	ps.spare = usmpAlloc{}
	if len(cur.off) != n {
		cur = usmpAlloc{off: make([]int64, n), nope: make([]bool, n)}
	}
	ps.cur = cur
	ps.full = ps.last.off == nil
	if !ps.full {
		copy(cur.off, ps.last.off)
		copy(cur.nope, ps.last.nope)
		ps.epoch++
		if ps.tt != nil {
			// The lane has reset the tree (usmpLane.run).
			ps.tA, ps.tB, ps.tLo = math.MaxInt32, -1, math.MaxInt64
		}
		for _, i := range ps.swaps {
			ps.touch(i, cur.off[i])
		}
		for _, i := range ps.swaps {
			ps.mark[i], ps.low[i] = ps.epoch, -1
		}
		if ps.rmLive = ps.plain && ps.ix != nil; ps.rmLive {
			if ps.rm == nil {
				ps.rm, ps.gone = ps.empty.EmptyCopy(), make([]int32, n)
			} else {
				ps.rm.Reset()
			}
			for _, i := range ps.swaps {
				ps.remove(cur, i)
			}
		}
	} else {
		clear(cur.off)
		clear(cur.nope)
		ps.dirty, ps.rmLive = 0, false
	}
	clear(ps.fresh)
	ps.held = ps.held[:0]
}

// visit settles the buffer at position q of the pass begin readied,
// the positions before it settled: kept as in the last pass or placed
// again. It reports whether the pass stops there.
func (ps *usmpPass) visit(ctx context.Context, q int) (bool, error) {
	cur, full := ps.cur, ps.full
	i := ps.order[q]
	if l := ps.grp; l != nil && ps.tt != nil && l.order[q] == i {
		// In lockstep, a buffer where base has it: what the pass asks
		// of it (marked, keeps, reaches) from the lane's table, read in
		// order rather than by buffer.
		if ps.keptAt(&l.info[q], q) {
			ps.moved = false
			return ps.stop > 0 && ps.reachesEnd(0, l.info[q].end), nil
		}
	} else if q < int(ps.dirty) || !full && (!ps.marked(cur, i) || ps.keeps(cur, i)) {
		// As in the last pass.
		ps.moved = false
		ps.cur.unfit = ps.cur.unfit || cur.nope[i]
		if ps.ix != nil && !cur.nope[i] && ps.grp == nil {
			ps.held = append(ps.held, i)
		}
		return ps.stop > 0 && ps.reaches(cur, i), nil
	}
	// Poll ctx by work done: a buffer can conflict with all others.
	if ps.work += int(ps.deg[i]) + 1; ps.work >= kernel.CtxCheckEvery*64 || q == int(ps.dirty) {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		ps.work = 0
	}
	var off int64
	var nope bool
	if ps.ix != nil {
		// A buffer that did not move in the order, past the first
		// pass: every offset below its old one was blocked, and one
		// whose window ends by the lowest change still is.
		var above int64
		if !full && ps.low[i] >= 0 {
			above = max(0, min(cur.off[i], ps.low[i]-ps.g.size[i]+1))
		}
		off, nope = ps.placeSpans(cur, i, above)
	} else {
		off, nope = ps.placeLists(cur, i, int32(q))
	}
	ps.moved = full || off != cur.off[i] || nope != cur.nope[i] || ps.low[i] < 0
	if !full && ps.moved {
		ps.touch(i, min(off, cur.off[i]))
		if ps.rmLive && off != cur.off[i] {
			ps.remove(cur, i)
		}
	}
	cur.off[i], cur.nope[i] = off, nope
	ps.cur.unfit = ps.cur.unfit || nope
	return ps.stop > 0 && ps.reaches(cur, i), nil
}

// remove records in ps.rm the range buffer i held in the last pass (its
// place in cur, before it is placed again), once a pass.
func (ps *usmpPass) remove(cur usmpAlloc, i int32) {
	if ps.gone[i] == ps.epoch {
		return
	}
	ps.gone[i] = ps.epoch
	g := ps.g
	ps.rm.Place(&g.tasks[i], kernel.Comp{Lo: cur.off[i], Hi: AlignUp(cur.off[i]+g.size[i], g.align)})
}

// windows returns, for buffer i, the offsets below upTo (its last place)
// that may hold it now, as sorted, disjoint windows [Lo, Hi) from above
// up (usmpPass: those a range in ps.rm of a buffer overlapping it in time
// blocked), in ps.wins' storage.
func (ps *usmpPass) windows(i int32, upTo, above int64) []kernel.Comp {
	size := ps.g.size[i]
	// Only ranges ending above above and starting below upTo+size-1
	// give a window.
	ps.comps = ps.rm.OverlappingWithin(ps.comps[:0], &ps.g.tasks[i], above, upTo+size-1)
	wins := ps.wins[:0]
	for _, c := range ps.comps { // sorted by Lo
		lo, hi := max(above, c.Lo-size+1), min(c.Hi, upTo)
		if lo >= hi {
			continue
		}
		if n := len(wins); n > 0 && lo <= wins[n-1].Hi {
			wins[n-1].Hi = max(wins[n-1].Hi, hi)
		} else {
			wins = append(wins, kernel.Comp{Lo: lo, Hi: hi})
		}
	}
	ps.wins = wins
	return wins
}

// reaches raises buffer i's pool's size in ps.high to its end in cur,
// and ps.sum with it, and reports whether ps.sum reached ps.stop.
func (ps *usmpPass) reaches(cur usmpAlloc, i int32) bool {
	return ps.reachesEnd(ps.g.pools.poolOf(i), cur.off[i]+ps.g.size[i])
}

// reachesEnd is reaches for a buffer of pool m ending at end.
func (ps *usmpPass) reachesEnd(m int, end int64) bool {
	if end > ps.high[m] {
		ps.sum += end - ps.high[m]
		ps.high[m] = end
	}
	return ps.sum >= ps.stop
}

// usmpAt is what a pass in lockstep asks of the buffer at a position of
// base's order, where it has not moved (usmpLane.info): its span, size
// and end in base.
type usmpAt struct {
	a, b      int32
	size, end int64
}

// keptAt is visit's test, for the buffer at position q in lockstep,
// where base has it (so the pass has not marked it yet and it sits at
// its place in base, of which in tells), whether it stays there: before
// the first position that differs, unmarked (marked), or marked but
// kept (keeps); where it is marked, mark and low are set as marked
// sets them.
func (ps *usmpPass) keptAt(in *usmpAt, q int) bool {
	if q < int(ps.dirty) || in.b < ps.tA || ps.tB < in.a || in.size > 0 && ps.tLo >= in.end {
		return true
	}
	// The blocks' tree first: its maximum is at least the points'.
	if v := ps.tc.maxIn(ps.slot, in.a>>usmpCoarseShift, in.b>>usmpCoarseShift); v == 0 || in.size > 0 && math.MaxInt64-v >= in.end {
		return true
	}
	v := ps.tt.maxIn(ps.slot, in.a, in.b)
	if v == 0 {
		return true
	}
	low := math.MaxInt64 - v
	if in.size > 0 && low >= in.end {
		return true
	}
	i := ps.order[q]
	ps.mark[i], ps.low[i] = ps.epoch, low
	return false
}

// marked reports whether buffer i's set of conflicts may differ from the
// last pass's, and sets ps.low[i] if so. Without lists it may also
// report false for a buffer that keeps its place (keeps), which the
// caller treats alike.
func (ps *usmpPass) marked(cur usmpAlloc, i int32) bool {
	if ps.tt == nil {
		return ps.mark[i] == ps.epoch
	}
	// The span holds every buffer a swap moved (touch), which alone
	// are marked before they are visited.
	t := &ps.g.tasks[i]
	if t.B < ps.tA || ps.tB < t.A {
		return false
	}
	if ps.mark[i] == ps.epoch {
		return true
	}
	if ps.unbounded(i) && ps.g.size[i] > 0 && ps.tLo >= cur.off[i]+ps.g.size[i] {
		return false // keeps: every touch lies at or above its end
	}
	if v := ps.tc.maxIn(ps.slot, t.A>>usmpCoarseShift, t.B>>usmpCoarseShift); v == 0 || ps.unbounded(i) && ps.g.size[i] > 0 && math.MaxInt64-v >= cur.off[i]+ps.g.size[i] {
		return false // as below, by the blocks' tree, whose maximum is at least the points'
	}
	v := ps.tt.maxIn(ps.slot, t.A, t.B)
	if v == 0 {
		return false
	}
	ps.mark[i], ps.low[i] = ps.epoch, math.MaxInt64-v
	return true
}

// keeps reports whether marked buffer i keeps its last place: it did not
// move, its pool is unbounded, and every change to its conflicts lies at
// or above its old end.
func (ps *usmpPass) keeps(cur usmpAlloc, i int32) bool {
	g := ps.g
	return ps.unbounded(i) && g.size[i] > 0 && ps.low[i] >= cur.off[i]+g.size[i]
}

// unbounded reports whether buffer i's pool has no size hint.
func (ps *usmpPass) unbounded(i int32) bool {
	h := ps.g.pools.hint
	return h == nil || h[ps.g.pools.poolOf(i)] == 0
}

// index returns the pass's index of buffer i's pool.
func (ps *usmpPass) index(i int32) *kernel.CompIndex {
	m := ps.g.pools.poolOf(i)
	if !ps.fresh[m] {
		if ps.ix[m] == nil {
			ps.ix[m] = ps.empty.EmptyCopy()
		} else {
			ps.ix[m].Reset()
		}
		ps.fresh[m] = true
	}
	return ps.ix[m]
}

// placeSpans is placeLists over the index of the pass's placed buffers,
// and places buffer i in it. The walk by offset gives the lowest of 0
// and the conflicts' aligned ends that clears them all (by their closed
// ranges [offset, aligned end], as a zero-size conflict inside the
// buffer's range counts): the start of the lowest gap between the
// components of those ranges that holds the buffer, else their top; and
// the pool drops iff the top leaves no room. In one unbounded pool the
// walk starts at above, below which no offset holds the buffer.
func (ps *usmpPass) placeSpans(cur usmpAlloc, i int32, above int64) (int64, bool) {
	g := ps.g
	for _, j := range ps.held {
		ps.index(j).Place(&g.tasks[j], kernel.Comp{Lo: cur.off[j], Hi: AlignUp(cur.off[j]+g.size[j], g.align)})
	}
	ps.held = ps.held[:0]
	size := g.size[i]
	ix := ps.index(i)
	t := &g.tasks[i]
	if ps.plain {
		// No pool to check against the top: the lowest gap that holds
		// the buffer, found without merging all the components; below
		// its last place, only in the windows a removal opened.
		var wins []kernel.Comp
		upTo := above
		if ps.rmLive && ps.low[i] >= 0 {
			upTo = cur.off[i]
			wins = ps.windows(i, upTo, above)
		}
		if l := ps.grp; l != nil {
			// In lockstep: the walk takes the buffers the passes
			// share too, those before the buffer's position.
			return ix.FirstFitWindowsPrefix(l.shared, ps.pos[i], t, size, 1, wins, upTo), false
		}
		off := ix.FirstFitWindows(t, size, 1, wins, upTo)
		ix.Place(t, kernel.Comp{Lo: off, Hi: AlignUp(off+size, g.align)})
		return off, false
	}
	if size > 0 && ix.CoversAll(t.A, t.B) {
		// Every placed buffer conflicts: gaps shorter than the buffer
		// may go, the top stays.
		ps.comps = ix.AllGapSpans(ps.comps[:0], size)
	} else {
		ps.comps = ix.Overlapping(ps.comps[:0], t)
	}
	var top int64
	for _, c := range ps.comps {
		top = max(top, c.Hi)
	}
	if m := g.pools.poolOf(i); !g.pools.fits(m, 0, size) || !g.pools.fits(m, top, size) {
		return 0, true
	}
	off := kernel.FirstFit(ps.comps, size, 1)
	ix.Place(t, kernel.Comp{Lo: off, Hi: AlignUp(off+size, g.align)})
	return off, false
}

// placeLists returns where buffer i, at position q, goes given the
// places in cur of the buffers before it in its list, and whether it is
// left in no pool.
func (ps *usmpPass) placeLists(cur usmpAlloc, i, q int32) (int64, bool) {
	g := ps.g
	m := g.pools.poolOf(i)
	size := g.size[i]
	comps := ps.comps[:0]
	in := ps.plain || g.pools.fits(m, 0, size)
	for _, j := range g.conflicts(i) {
		if ps.pos[j] >= q || !ps.plain && (cur.nope[j] || g.pools.poolOf(j) != m) {
			continue
		}
		next := AlignUp(cur.off[j]+g.size[j], g.align)
		if !ps.plain && !g.pools.fits(m, next, size) {
			in = false
		}
		comps = append(comps, kernel.Comp{Lo: cur.off[j], Hi: next})
	}
	ps.comps = comps
	if !in {
		return 0, true
	}
	return usmpFirstFit(comps, size), false
}

// usmpFirstFit is the hill climb's walk: over the placed conflicts
// [offset, aligned end] by offset, the candidate (from 0) moves to an end
// above it whenever that conflict starts below the candidate's end. It
// sorts comps.
func usmpFirstFit(comps []kernel.Comp, size int64) int64 {
	kernel.SortComps(comps)
	var cand int64
	for _, c := range comps {
		if c.Hi > cand && cand+size > c.Lo {
			cand = c.Hi
		}
	}
	return cand
}

// usmpPicks holds a hill-climb step's swap candidates for the buffer at
// the top (node): first, its conflicts placed before it, by position;
// and TVM's second list, every conflict c2 placed before a conflict c1
// of node (once per such c1), by position, kept as a count per position.
type usmpPicks struct {
	first []int32
	count []int64 // count[q]: how many times the buffer at position q is in the second list
	used  []int32 // the positions with a count, sorted by gather
	cum   []int64 // cum[k]: the second list's entries up to used[k]
	total int64   // the second list's length
	order []int32
	// gatherSpans' Fenwick trees over time: the first and last points
	// of the lifetimes counted.
	starts, ends []int32
	// The node and the order the lists were gathered for (fill); valid
	// once filled.
	forNode  int32
	forOrder []int32
	filled   bool
}

// fill gathers the lists for node (gather, or gatherSpans without the
// lists) unless they are those of the last fill: the same node in the
// same order, as after an attempt that was rejected, which went back to
// the order the one before left, give the same lists.
func (p *usmpPicks) fill(g *usmpGraph, pos, order []int32, node int32) {
	if p.filled && node == p.forNode && slices.Equal(order, p.forOrder) {
		p.order = order
		return
	}
	if g.lists() {
		p.gather(g, pos, order, node)
	} else {
		p.gatherSpans(g, pos, order, node)
	}
	p.forNode, p.forOrder, p.filled = node, append(p.forOrder[:0], order...), true
}

func newUSMPPicks(n int) *usmpPicks { return &usmpPicks{count: make([]int64, n)} }

// gatherSpans is gather where the lists are the overlapping spans
// (g.spans): the first list by a walk over the positions before node's;
// the second by count, position by position from the last: the number of
// node's conflicts c1 after position q whose lifetime overlaps that of
// the buffer at q, which two Fenwick trees over time give (those of the
// c1 seen so far that start by its last point, less those that end
// before its first).
func (p *usmpPicks) gatherSpans(g *usmpGraph, pos, order []int32, node int32) {
	for _, q := range p.used {
		p.count[q] = 0
	}
	p.first, p.used, p.cum, p.total, p.order = p.first[:0], p.used[:0], p.cum[:0], 0, order
	nt := &g.tasks[node]
	for q := range pos[node] {
		if t := &g.tasks[order[q]]; t.A <= nt.B && nt.A <= t.B {
			p.first = append(p.first, order[q])
		}
	}
	d := int(g.spans.Tasks())
	if len(p.starts) < d+1 {
		p.starts, p.ends = make([]int32, d+1), make([]int32, d+1)
	} else {
		clear(p.starts)
		clear(p.ends)
	}
	// The c1's lifetimes lie within [lo, hi]: a buffer outside counts 0.
	lo, hi := int32(math.MaxInt32), int32(-1)
	seen := false
	for q := len(order) - 1; q >= 0; q-- {
		b := order[q]
		t := &g.tasks[b]
		if seen && t.A <= hi && lo <= t.B {
			c := int64(fenwickSum(p.starts, t.B) - fenwickSum(p.ends, t.A-1))
			if c > 0 {
				p.count[q] = c
				p.used = append(p.used, int32(q))
			}
		}
		if b != node && t.A <= nt.B && nt.A <= t.B {
			fenwickAdd(p.starts, t.A)
			fenwickAdd(p.ends, t.B)
			lo, hi, seen = min(lo, t.A), max(hi, t.B), true
		}
	}
	slices.Reverse(p.used)
	for _, q := range p.used {
		p.total += p.count[q]
		p.cum = append(p.cum, p.total)
	}
}

// fenwickAdd adds one at point x (0-based) of the Fenwick tree f.
func fenwickAdd(f []int32, x int32) {
	for i := int(x) + 1; i < len(f); i += i & -i {
		f[i]++
	}
}

// fenwickSum returns the sum of the Fenwick tree f over points 0..x.
func fenwickSum(f []int32, x int32) int32 {
	var s int32
	for i := int(x) + 1; i > 0; i -= i & -i {
		s += f[i]
	}
	return s
}

// gather fills the lists for node.
func (p *usmpPicks) gather(g *usmpGraph, pos, order []int32, node int32) {
	for _, q := range p.used {
		p.count[q] = 0
	}
	p.first, p.used, p.cum, p.total, p.order = p.first[:0], p.used[:0], p.cum[:0], 0, order
	for _, c1 := range g.conflicts(node) {
		if pos[node] > pos[c1] {
			p.first = append(p.first, pos[c1])
		}
		for _, c2 := range g.conflicts(c1) {
			if q := pos[c2]; pos[c1] > q {
				if p.count[q] == 0 {
					p.used = append(p.used, q)
				}
				p.count[q]++
			}
		}
	}
	slices.Sort(p.first)
	for k, q := range p.first {
		p.first[k] = order[q]
	}
	slices.Sort(p.used)
	for _, q := range p.used {
		p.total += p.count[q]
		p.cum = append(p.cum, p.total)
	}
}

// second returns the second list's entry k (0-based).
func (p *usmpPicks) second(k int64) int32 {
	u, _ := slices.BinarySearch(p.cum, k+1)
	return p.order[p.used[u]]
}

// secondOther reports whether the second list holds a buffer at a
// position other than q.
func (p *usmpPicks) secondOther(q int32) bool {
	return len(p.used) > 1 || len(p.used) == 1 && p.used[0] != q
}
