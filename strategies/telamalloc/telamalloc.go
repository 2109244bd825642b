// Package telamalloc is the strategy `telamalloc`: TelaMalloc (Maas et
// al., "TelaMalloc: Efficient On-Chip Memory Allocation for Production
// Machine Learning Accelerators", ASPLOS'23) as OmniMalloc adapts it.
//
// No implementation of TelaMalloc is public, and the paper's search
// couples its heuristic to a CP solver (OR-tools) and leaves the
// selection tiers, backtracking budgets and the treatment of a
// minimise-footprint goal open. This package follows the one public
// adaptation, OmniMalloc's (github.com/fpedd/omnimalloc, commit 2e9cf4e,
// src/cpp/allocators/telamalloc.cpp and first_fit.cpp's first_fit_offset,
// defaults from src/python/omnimalloc/allocators/telamalloc.py and
// common/constants.py), rule for rule, and returns its offsets for the
// same seed; where OmniMalloc departs from the paper it is said below.
//
// The rules, in our words. A buffer live in tasks [First, Last] spans
// [First, Last+1); its duration is Last+1-First.
//
//   - Phases (the paper's): the connected components of the overlap
//     graph; they never interact, so each is solved alone, those of the
//     highest peak load first (ties: the phase holding the lowest buffer
//     index first).
//   - Each phase minimises its peak (OmniMalloc's adaptation: the paper
//     packs under a fixed memory limit). Two incumbents: first fit in
//     the paper's tiered orders, longest duration then largest size, and
//     largest size then longest duration (ties: lowest index). The lower
//     peak wins (ties: duration first) and its order steers the rest. A
//     binary search on the capacity between the phase's peak load and
//     the incumbent's peak asks a packing attempt at the midpoint; a
//     success lowers the upper end to the peak it reached, a failure
//     raises the lower end past the midpoint.
//   - A packing attempt takes buffers from a queue ordered by times
//     evicted (most first: the paper's squeaky wheel), then the tiers,
//     then index, and puts each at the lowest gap among its placed
//     neighbours (first fit). When no gap fits under the capacity
//     (OmniMalloc's stand-in for the solver's failed propagation) it
//     scores the candidate offsets 0, just above each placed neighbour
//     (if that fits) and just below one (if above 0) by the bytes, then
//     the number, of neighbours each would overlap, then the offset
//     itself; with probability 1/4 (a draw of a Mersenne Twister
//     mt19937_64 seeded with seed, re-seeded per attempt) it takes a
//     random candidate instead (OmniMalloc's WalkSAT-style walk). The
//     overlapped neighbours are evicted and requeued with their eviction
//     count raised: the paper's minor backtrack. More than
//     min(max_backtracks, 4 × phase size) evictions since the last
//     restart wipe the phase and repack it in the new queue order: the
//     paper's major backtrack. More than max_backtracks evictions in all
//     fail the attempt.
//
// Zero-size buffers sit at offset 0 outside the search. A problem
// alignment rounds every size up to it (OmniMalloc has none), so offsets
// stay aligned; Plan.Arena then counts the rounding. Per-buffer alignment,
// gaps and fixed offsets are refused, as OmniMalloc's adaptation has none.
// The wall-time budget is OmniMalloc's default, 3 s (DEFAULT_TIMEOUT); a
// plan then depends on the machine's speed where the budget binds. With
// timeout=0 it depends on the problem, seed and max_backtracks alone.
//
// Where the buffers conflict in more than listPairs pairs (idealloc's
// Y_1: 180 million), the overlap graph is not stored: the first-fit
// incumbents go through kernel.CompIndex (the gaps among merged address
// ranges are the cursor walk's) and a packing attempt finds a buffer's
// placed neighbours through a static kernel.TimeIndex. A neighbour list is
// sorted by offset and index before any rule reads it, so the plan is the
// same either way (TestIndexPathSame); the deadline is then asked at
// every pop whose neighbours are many, as one pop can take long.
package telamalloc

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"membench/strategies"
	"membench/strategies/internal/kernel"
	"membench/strategies/internal/search"
	"membench/workloads"
)

func init() {
	strategies.Register(strategies.Info{
		Name:    "telamalloc",
		Runtime: "telamalloc",
		Kind:    strategies.Offsets,
		Doc: "TelaMalloc as OmniMalloc adapts it: per phase, tiered first fit with min-conflict eviction, " +
			"squeaky-wheel restarts and a binary search on the capacity",
		Arena: "counts sizes rounded up to the alignment",
		Params: []workloads.ParamDoc{
			{Name: "seed", Default: "42", Doc: "seed of the random repairs (mt19937_64)"},
			{Name: "max_backtracks", Default: "10000", Doc: "evictions allowed per capacity attempt"},
			{Name: "timeout", Default: "3s", Doc: "wall-time budget (OmniMalloc's DEFAULT_TIMEOUT), 0 for none (then the plan is deterministic)"},
		},
		New: newTela,
	})
}

func newTela(args *workloads.Args) (strategies.Strategy, error) {
	seed := args.Int64("seed", 42)
	bt := args.Int64("max_backtracks", 10000)
	tstr := args.String("timeout", "3s")
	timeout, err := time.ParseDuration(tstr)
	switch {
	case err != nil || timeout < 0:
		return nil, workloads.Usagef("telamalloc: parameter timeout=%q: want a duration such as 3s or 500ms", tstr)
	case bt < 0 || bt > math.MaxInt32:
		return nil, workloads.Usagef("telamalloc: parameter max_backtracks=%d: want 0 to %d", bt, math.MaxInt32)
	}
	return tela{seed: uint64(seed), maxBT: int(bt), timeout: timeout, maxPairs: listPairs}, nil
}

type tela struct {
	seed     uint64
	maxBT    int
	timeout  time.Duration
	maxPairs int64 // the overlap graph is kept as lists up to this many pairs
}

func (tela) Name() string { return "telamalloc" }

// unbounded is OmniMalloc's kUnbounded: a capacity that never binds.
const unbounded = math.MaxInt64 / 4

type solver struct {
	ctx      context.Context
	deadline time.Time // zero: none
	seed     uint64
	maxBT    int
	size     []int64
	dur      []int64
	nbrs     [][]int32 // nil on the index path
	// The index path: every live buffer in a static index over time,
	// and the spans and tasks for the first-fit incumbents.
	static *kernel.TimeIndex
	tspan  *kernel.TaskSpans
	items  []kernel.Placed
	looks  int
}

// listPairs is the most conflicting pairs for which the overlap graph is
// kept as lists (8 bytes a pair).
const listPairs = 1 << 22

// stop reports whether the context has ended or, when timed, the
// deadline has passed (OmniMalloc's deadline_expired).
func (s *solver) stop(timed bool) bool {
	return s.ctx.Err() != nil || (timed && !s.deadline.IsZero() && time.Now().After(s.deadline))
}

func (t tela) Plan(ctx context.Context, p *workloads.Problem) (*strategies.Plan, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	align := max(p.Alignment, 1)
	n := len(p.Buffers)
	s := &solver{ctx: ctx, seed: t.seed, maxBT: t.maxBT, size: make([]int64, n), dur: make([]int64, n)}
	if t.timeout > 0 {
		s.deadline = time.Now().Add(t.timeout)
	}
	var total int64
	var live []int
	for i, b := range p.Buffers {
		switch {
		case b.Size < 0:
			return nil, fmt.Errorf("telamalloc: buffer %d (id %d) has negative size %d", i, b.ID, b.Size)
		case b.First > b.Last:
			return nil, fmt.Errorf("telamalloc: buffer %d (id %d) has first task %d after last task %d", i, b.ID, b.First, b.Last)
		case b.Size == 0:
			continue
		}
		s.size[i] = (b.Size + align - 1) / align * align
		if s.size[i] > unbounded-total {
			return nil, fmt.Errorf("telamalloc: the sizes add up to more than %d", int64(unbounded))
		}
		total += s.size[i]
		s.dur[i] = int64(b.Last) + 1 - int64(b.First)
		live = append(live, i)
	}
	var phases []phase
	if kernel.ConflictPairs(p.Buffers) > t.maxPairs {
		s.indexPath(p.Buffers, live)
		phases = s.sweepPhases(p.Buffers, live)
	} else {
		s.nbrs = make([][]int32, n)
		if err := s.overlaps(p.Buffers, live); err != nil {
			return nil, err
		}
		phases = s.phases(p.Buffers, live)
	}
	if err := s.ctx.Err(); err != nil {
		return nil, err
	}
	off := make([]int64, n)
	if len(live) >= 2 {
		for _, ph := range phases {
			if err := s.solvePhase(ph.members, ph.lb, off); err != nil {
				return nil, err
			}
		}
	}
	plan := &strategies.Plan{Offsets: off}
	plan.Footprint = strategies.Footprint(p.Buffers, off)
	var top int64
	for i := range off {
		if s.size[i] > 0 {
			top = max(top, off[i]+s.size[i])
		}
	}
	if top != plan.Footprint {
		plan.Arena = top
	}
	return plan, nil
}

// overlaps builds the overlap graph of the buffers in live by a sweep
// over first tasks.
func (s *solver) overlaps(bufs []workloads.Buffer, live []int) error {
	order := slices.Clone(live)
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(bufs[a].First, bufs[b].First) })
	var active []int
	for k, i := range order {
		if k&1023 == 0 {
			if err := s.ctx.Err(); err != nil {
				return err
			}
		}
		kept := active[:0]
		for _, j := range active {
			if bufs[j].Last >= bufs[i].First {
				kept = append(kept, j)
				s.nbrs[i] = append(s.nbrs[i], int32(j))
				s.nbrs[j] = append(s.nbrs[j], int32(i))
			}
		}
		active = append(kept, i)
	}
	return nil
}

type phase struct {
	members []int
	lb      int64
	first   int
}

// phases returns the connected components of the overlap graph, by
// decreasing peak load, ties by their lowest buffer index.
func (s *solver) phases(bufs []workloads.Buffer, live []int) []phase {
	seen := make([]bool, len(bufs))
	var out []phase
	for _, root := range live {
		if seen[root] {
			continue
		}
		seen[root] = true
		ph := phase{first: root}
		stack := []int{root}
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			ph.members = append(ph.members, i)
			for _, j := range s.nbrs[i] {
				if !seen[j] {
					seen[j] = true
					stack = append(stack, int(j))
				}
			}
		}
		ph.lb = s.peakLoad(bufs, ph.members)
		out = append(out, ph)
	}
	sortPhases(out)
	return out
}

// sortPhases orders phases by decreasing peak load, ties by their lowest
// buffer index.
func sortPhases(out []phase) {
	slices.SortStableFunc(out, func(a, b phase) int {
		if c := cmp.Compare(b.lb, a.lb); c != 0 {
			return c
		}
		return cmp.Compare(a.first, b.first)
	})
}

// sweepPhases is phases without the overlap graph: the connected
// components of an interval graph are the runs of lifetimes, in order of
// first task, that overlap what came before. A phase's member order does
// not matter (the queue orders them by distinct keys).
func (s *solver) sweepPhases(bufs []workloads.Buffer, live []int) []phase {
	order := slices.Clone(live)
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(bufs[a].First, bufs[b].First) })
	var out []phase
	var reach int
	for k, i := range order {
		if k == 0 || bufs[i].First > reach {
			out = append(out, phase{first: i})
			reach = bufs[i].Last
		}
		ph := &out[len(out)-1]
		ph.members = append(ph.members, i)
		ph.first = min(ph.first, i)
		reach = max(reach, bufs[i].Last)
	}
	for k := range out {
		out[k].lb = s.peakLoad(bufs, out[k].members)
	}
	sortPhases(out)
	return out
}

// indexPath indexes every live buffer over time, for packing attempts to
// find their neighbours without lists.
func (s *solver) indexPath(bufs []workloads.Buffer, live []int) {
	s.tspan = kernel.NewTaskSpans(bufs, false)
	s.static = kernel.NewTimeIndex(s.tspan)
	for _, i := range live {
		s.static.Place(s.tspan.ID[i], kernel.Placed{Seq: int32(i) + 1})
	}
}

// placedNeighbours appends to occ the placed neighbours of idx.
func (s *solver) placedNeighbours(occ []placed, idx int, offs []int64) []placed {
	if s.nbrs != nil {
		for _, o := range s.nbrs[idx] {
			if offs[o] >= 0 {
				occ = append(occ, placed{offs[o], o})
			}
		}
		return occ
	}
	s.items = s.static.Overlapping(s.items[:0], s.tspan.ID[idx])
	for _, it := range s.items {
		if o := it.Seq - 1; int(o) != idx && offs[o] >= 0 {
			occ = append(occ, placed{offs[o], o})
		}
	}
	return occ
}

// firstFit is a packing attempt under no capacity on the index path: no
// buffer is ever evicted, so each takes the lowest gap among its placed
// neighbours in queue order, and merged ranges give the same gaps.
func (s *solver) firstFit(members []int, sizeMajor bool) ([]int64, bool) {
	offs := make([]int64, len(s.size))
	for i := range offs {
		offs[i] = -1
	}
	keys := make([]qkey, 0, len(members))
	for _, i := range members {
		keys = append(keys, s.key(i, 0, sizeMajor))
	}
	slices.SortFunc(keys, func(a, b qkey) int {
		if keyLess(a, b) {
			return -1
		}
		return 1
	})
	ix := kernel.NewCompIndex(s.tspan)
	ix.GatherByID()
	for k, key := range keys {
		if k%kernel.CtxCheckEvery == 0 && s.stop(false) {
			return nil, false
		}
		i := key.idx
		t := s.tspan.TaskOf(i, s.size[i])
		o := ix.FirstFit(&t, s.size[i], 1)
		offs[i] = o
		ix.Place(&t, kernel.Comp{Lo: o, Hi: o + s.size[i]})
	}
	return offs, true
}

// peakLoad is the most bytes live at once among members: a lower bound.
func (s *solver) peakLoad(bufs []workloads.Buffer, members []int) int64 {
	type ev struct {
		t     int64
		delta int64
	}
	evs := make([]ev, 0, 2*len(members))
	for _, i := range members {
		evs = append(evs, ev{int64(bufs[i].First), s.size[i]}, ev{int64(bufs[i].Last) + 1, -s.size[i]})
	}
	// Ends before starts at one time: [First, Last+1) spans.
	slices.SortFunc(evs, func(a, b ev) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.delta, b.delta)
	})
	var run, top int64
	for _, e := range evs {
		run += e.delta
		top = max(top, run)
	}
	return top
}

func (s *solver) peak(members []int, off []int64) int64 {
	var top int64
	for _, i := range members {
		top = max(top, off[i]+s.size[i])
	}
	return top
}

// solvePhase is solve_phase: the incumbents, then the binary search on
// the capacity. It writes the phase's offsets into out.
func (s *solver) solvePhase(members []int, lb int64, out []int64) error {
	pack := s.pack
	if s.nbrs == nil {
		pack = func(members []int, _ int64, _ int, _ bool, sizeMajor bool) ([]int64, bool) {
			return s.firstFit(members, sizeMajor)
		}
	}
	byDur, ok1 := pack(members, unbounded, 0, false, false)
	bySize, ok2 := pack(members, unbounded, 0, false, true)
	if !ok1 || !ok2 {
		return s.ctx.Err() // the incumbents fail only when cancelled
	}
	durPeak, sizePeak := s.peak(members, byDur), s.peak(members, bySize)
	sizeMajor := sizePeak < durPeak
	best := byDur
	if sizeMajor {
		best = bySize
	}
	lo, hi := lb, min(durPeak, sizePeak)
	for lo < hi {
		if s.stop(true) {
			break
		}
		mid := lo + (hi-lo)/2
		if offs, ok := s.pack(members, mid, s.maxBT, true, sizeMajor); ok {
			best = offs
			hi = s.peak(members, best)
		} else {
			lo = mid + 1
		}
	}
	if err := s.ctx.Err(); err != nil {
		return err
	}
	for _, i := range members {
		out[i] = best[i]
	}
	return nil
}

// qkey is OmniMalloc's QueueKey: evictions, then the tiers, decreasing;
// then index.
type qkey struct {
	evict, k1, k2 int64
	idx           int
}

func (s *solver) key(i, evictions int, sizeMajor bool) qkey {
	if sizeMajor {
		return qkey{int64(evictions), s.size[i], s.dur[i], i}
	}
	return qkey{int64(evictions), s.dur[i], s.size[i], i}
}

func keyLess(a, b qkey) bool {
	switch {
	case a.evict != b.evict:
		return a.evict > b.evict
	case a.k1 != b.k1:
		return a.k1 > b.k1
	case a.k2 != b.k2:
		return a.k2 > b.k2
	}
	return a.idx < b.idx
}

// queue holds distinct keys, so popping the least is std::set's begin().
type queue []qkey

func (q queue) Len() int           { return len(q) }
func (q queue) Less(i, j int) bool { return keyLess(q[i], q[j]) }
func (q queue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)        { *q = append(*q, x.(qkey)) }
func (q *queue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

type placed struct {
	off int64
	idx int32
}

// pack is pack_phase: one attempt to pack members within capacity. ok is
// false when the eviction budget ran out (or, with deadline, the time).
func (s *solver) pack(members []int, capacity int64, maxBT int, deadline bool, sizeMajor bool) ([]int64, bool) {
	offs := make([]int64, len(s.size))
	for i := range offs {
		offs[i] = -1
	}
	evictions := make([]int, len(s.size))
	rng := search.NewMT64(s.seed)
	perRestart := min(maxBT, 4*len(members))
	totalBT := 0
	var occ []placed
	var cands []int64
	for {
		for _, i := range members {
			offs[i] = -1
		}
		q := make(queue, 0, len(members))
		for _, i := range members {
			q = append(q, s.key(i, evictions[i], sizeMajor))
		}
		heap.Init(&q)
		restartBT := 0
		for q.Len() > 0 {
			// OmniMalloc asks its deadline at every pop; this asks at
			// every 64th, and after every pop with many neighbours.
			if s.looks++; (s.looks&63 == 0 || len(occ) > 256) && s.stop(deadline) {
				return nil, false
			}
			idx := heap.Pop(&q).(qkey).idx
			size := s.size[idx]
			occ = s.placedNeighbours(occ[:0], idx, offs)
			slices.SortFunc(occ, func(a, b placed) int {
				if c := cmp.Compare(a.off, b.off); c != 0 {
					return c
				}
				return cmp.Compare(a.idx, b.idx)
			})
			// first_fit_offset
			var cursor int64
			for _, o := range occ {
				if o.off-cursor >= size {
					break
				}
				cursor = max(cursor, o.off+s.size[o.idx])
			}
			if cursor+size <= capacity {
				offs[idx] = cursor
				continue
			}
			cands = append(cands[:0], 0)
			for _, o := range occ {
				end := o.off + s.size[o.idx]
				if end+size <= capacity {
					cands = append(cands, end)
				}
				if o.off > size {
					cands = append(cands, o.off-size)
				}
			}
			bestBytes, bestCount, bestOff := int64(-1), 0, int64(0)
			for _, c := range cands {
				var bytes int64
				count := 0
				for _, o := range occ {
					if o.off < c+size && o.off+s.size[o.idx] > c {
						bytes += s.size[o.idx]
						count++
					}
				}
				if bestBytes < 0 || bytes < bestBytes || (bytes == bestBytes && (count < bestCount || (count == bestCount && c < bestOff))) {
					bestBytes, bestCount, bestOff = bytes, count, c
				}
			}
			if rng.Uint64()%4 == 0 {
				bestOff = cands[rng.Uint64()%uint64(len(cands))]
			}
			for _, o := range occ {
				if o.off < bestOff+size && o.off+s.size[o.idx] > bestOff {
					offs[o.idx] = -1
					evictions[o.idx]++
					heap.Push(&q, s.key(int(o.idx), evictions[o.idx], sizeMajor))
					restartBT++
					totalBT++
				}
			}
			offs[idx] = bestOff
			if totalBT > maxBT {
				return nil, false
			}
			if restartBT > perRestart {
				break
			}
		}
		if q.Len() == 0 {
			return offs, true
		}
	}
}
