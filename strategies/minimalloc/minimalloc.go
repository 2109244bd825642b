// Package minimalloc is the strategy `minimalloc`: a port of google/
// minimalloc's solver (Moffitt, ASPLOS'23) at commit 9f5cf81, files
// src/solver.cc (the search) and src/sweeper.cc (the sections and
// partitions); Buffer::effective_size (src/minimalloc.cc) is membench's
// shared rule, workloads.EffectiveSize. For the same buffers, capacity and
// parameters it returns the offsets MiniMalloc's C++ returns, after the
// same search (the same backtrack count); its tests hold 1,200 random
// instances and A–K as the C++ solved them (testdata/README.md).
//
// The rules, in our words. Times are MiniMalloc's half-open lifespans
// [first, last+1). A sweep over the start and end times cuts the timeline
// into sections (the sets of buffers using memory together between two
// consecutive events) and into partitions that no buffer crosses, and
// records for each buffer the sections it spans and, for each buffer that
// shares time with it, its effective size: how far above its offset the
// other may start (its size, less where gaps leave part of it unused).
//
// The search asks whether every buffer fits below the capacity. It places
// one buffer per level, always at the lowest offset the buffers already
// placed leave it (its minimum offset, rounded up to its alignment), and
// tries the unplaced buffers in order of that offset, ties broken by a
// static preorder. The preorder sorts by a heuristic's keys, each larger
// first (W lifespan width, A area, T the largest section total, and C, L,
// O, U, Z), then by index. It prunes:
//   - canonical_only: offsets never go down along a branch (ties: in
//     preorder), so each solution is built in one order only;
//   - check_dominance: no buffer goes at or above the lowest top another
//     unplaced buffer could reach, which would leave a useless hole;
//   - monotonic_floor and section_inference: in every section, the floor
//     (the top of its last placed buffer, at least the current offset)
//     plus the bytes still to place there must fit the capacity;
//   - unallocated_floor: a section's floor is at least the lowest minimum
//     offset of its unplaced buffers;
//   - hatless_pruning: a buffer with no unplaced buffer above it ends the
//     alternatives at its level;
//   - fixed offsets: a buffer with a fixed offset starts at it and may not
//     go above it.
//
// With dynamic_decomposition, a placement that leaves a point in time no
// unplaced buffer crosses splits the rest of the search into independent
// parts. With several heuristics (the default, WAT, TAW, TWA) they take
// turns: each searches with a node limit that starts at twice the number
// of buffers and doubles each round, until one finishes or proves there
// is no solution. timeout= ends the search as upstream's does (the clock
// is read at every node): in capacity mode that is an error; in minimise
// mode the capacity being tried counts as failed, so the binary search
// runs out at once and returns the best solution found before.
//
// Capacity mode (the default) asks for a plan within the problem's
// Capacity, or capacity=. Minimise mode (minimize_capacity=true) is
// upstream's binary search: from [0, capacity], each solution found
// lowers the top of the range to its height less one; each failure raises
// the bottom past the capacity tried; the last solution found wins. When
// neither the problem nor capacity= gives a capacity, membench takes the
// highest fixed offset plus size (0 for none) plus the sum of every
// buffer's size plus its alignment less one: all the buffers stacked fit
// in it.
//
// The representations are membench's own and change no search (offsets,
// nodes and backtracks are the same; TestDifferential and
// TestDifferentialHard check them against the code before they changed):
// a problem without gaps whose sections or overlapping pairs number over
// implicitLimit keeps neither list but reads both from each buffer's span
// of sections through an interval index, whose nodes hold tournaments of
// their buffers' lowest offsets for the unallocated floor (bits mark its
// unplaced entries, so that a placement visits only unplaced overlaps),
// and keeps the section totals (for T) and the cuts in max trees; such a
// search first runs without the section floors, checking with a bound on
// them (the largest top or lowest offset it has set), and runs again
// keeping them only if that bound fails a check; the dynamic order of a
// partition of scanLimit buffers or more is read from a tournament tree
// over preorder positions, updated where a buffer changed rather than
// sorted at every level, and only the innermost partition's tree is
// held; and the undo records are chunked logs, of runs where values
// repeat.
//
// One more rule is membench's own: upstream's dominance rule never places
// a buffer of size 0 (its top is its offset, so it always lies at or above
// the lowest top), so with check_dominance upstream fails on any problem
// that has one. membench sets such buffers aside at offset 0 (or their
// fixed offset) and solves the others as upstream solves the problem
// without them.
//
// Per-buffer alignment, gaps (with their windows), fixed offsets and
// hints are MiniMalloc's own forms; hints are read and, as upstream's
// solver at this revision does, not used. The plan's Nodes is the number
// of search nodes visited (the calls of upstream's SearchSolutions that
// pass its node limit), over every turn and every capacity tried. In
// minimise mode, when no search timed out and no buffer has an alignment
// of its own, gaps or a fixed offset, the plan is marked optimal: the
// capacity below the answer was proved too small (tests check this
// against exact, which plans none of those forms).
package minimalloc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"membench/strategies"
	"membench/workloads"
)

func init() {
	strategies.Register(strategies.Info{
		Name:    "minimalloc",
		Runtime: "minimalloc",
		Kind:    strategies.Offsets,
		Doc: "MiniMalloc's solver (google/minimalloc 9f5cf81): canonical search with section inference " +
			"and dominance; a plan within the capacity, or the least capacity with minimize_capacity=true",
		Params: paramDocs,
		Forms:  workloads.FormAlign | workloads.FormGaps | workloads.FormFixed | workloads.FormHints,
		New:    newStrategy,
	})
}

// boolParams are upstream's boolean SolverParams, with their defaults.
var boolParams = []struct {
	name string
	def  bool
	doc  string
	set  func(*solverParams, bool)
}{
	{"canonical_only", true, "explore canonical solutions only", func(p *solverParams, v bool) { p.CanonicalOnly = v }},
	{"section_inference", true, "prune when a section's floor plus its unplaced bytes exceed the capacity", func(p *solverParams, v bool) { p.SectionInference = v }},
	{"dynamic_ordering", true, "order buffers by their lowest offset, then the preorder", func(p *solverParams, v bool) { p.DynamicOrdering = v }},
	{"check_dominance", true, "prune placements that leave a hole an unplaced buffer could fill", func(p *solverParams, v bool) { p.CheckDominance = v }},
	{"unallocated_floor", true, "raise section floors to their unplaced buffers' lowest offsets", func(p *solverParams, v bool) { p.UnallocatedFloor = v }},
	{"static_preordering", true, "sort buffers by the preordering heuristic first", func(p *solverParams, v bool) { p.StaticPreordering = v }},
	{"dynamic_decomposition", true, "split the search where no unplaced buffer crosses a time", func(p *solverParams, v bool) { p.DynamicDecomposition = v }},
	{"monotonic_floor", true, "require the floor to rise monotonically", func(p *solverParams, v bool) { p.MonotonicFloor = v }},
	{"hatless_pruning", true, "stop at a level once a buffer with nothing above it was tried", func(p *solverParams, v bool) { p.HatlessPruning = v }},
	{"minimize_capacity", false, "binary-search the least capacity that has a plan", func(p *solverParams, v bool) { p.MinimizeCapacity = v }},
}

var paramDocs = func() []workloads.ParamDoc {
	docs := []workloads.ParamDoc{
		{Name: "capacity", Default: "0", Doc: "the capacity in bytes (0: the problem's; with neither, all buffers stacked)"},
		{Name: "timeout", Default: "0s", Doc: "give up after this long (0s: never, as upstream)"},
		{Name: "preordering_heuristics", Default: "WAT,TAW,TWA", Doc: "comma-separated static preorders to take turns, letters of ACLOTUWZ"},
	}
	for _, b := range boolParams {
		docs = append(docs, workloads.ParamDoc{Name: b.name, Default: fmt.Sprint(b.def), Doc: b.doc})
	}
	return docs
}()

func newStrategy(args *workloads.Args) (strategies.Strategy, error) {
	params := defaultParams()
	for _, b := range boolParams {
		b.set(&params, args.Bool(b.name, b.def))
	}
	capacity := args.Bytes("capacity", 0)
	tstr := args.String("timeout", "0s")
	timeout, err := time.ParseDuration(tstr)
	if err != nil || timeout < 0 {
		return nil, workloads.Usagef("minimalloc: parameter timeout=%s: want a duration such as 10s or 500ms (0s: none)", workloads.Echo(tstr))
	}
	hstr := args.String("preordering_heuristics", "WAT,TAW,TWA")
	params.Heuristics = nil
	for _, h := range strings.Split(hstr, ",") {
		if h == "" {
			continue // as upstream's flag parsing skips empty entries
		}
		if k := strings.IndexFunc(h, func(r rune) bool { return !strings.ContainsRune("ACLOTUWZ", r) }); k >= 0 {
			return nil, workloads.Usagef("minimalloc: parameter preordering_heuristics=%s: %q is not a key (want letters of ACLOTUWZ: area, sections, lower, overlaps, total, upper, width, size)",
				workloads.Echo(hstr), h[k:k+1])
		}
		params.Heuristics = append(params.Heuristics, h)
	}
	if len(params.Heuristics) == 0 {
		return nil, workloads.Usagef("minimalloc: parameter preordering_heuristics=%s: want at least one heuristic such as WAT", workloads.Echo(hstr))
	}
	return &strategy{params: params, capacity: capacity, timeout: timeout}, nil
}

type strategy struct {
	params   solverParams
	capacity int64         // 0: the problem's
	timeout  time.Duration // 0: none
}

func (*strategy) Name() string { return "minimalloc" }

// ErrNoSolution is wrapped by the error of a search that found no plan.
var ErrNoSolution = errors.New("no solution")

// result is what one Solve returns beside the plan.
type result struct {
	Offsets []int64
	Height  int64
	// Nodes is the number of search nodes visited; Backtracks the number
	// of searches that found nothing (upstream's get_backtracks).
	Nodes, Backtracks int64
	// Capacity is the capacity asked about (minimise mode: the top of the
	// binary search).
	Capacity int64
	// Complete reports that no search was cut short by the timeout.
	Complete bool
}

func (s *strategy) Plan(ctx context.Context, p *workloads.Problem) (*strategies.Plan, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := workloads.CheckForms(p); err != nil {
		return nil, fmt.Errorf("minimalloc: %w", err)
	}
	bufs, err := convert(p)
	if err != nil {
		return nil, err
	}
	capacity := s.capacity
	if capacity == 0 {
		capacity = p.Capacity
	}
	if capacity == 0 {
		capacity = stackedCapacity(bufs)
	}
	// Upstream's dominance rule never places a buffer of size 0 (its top
	// is its offset, so it prunes itself): with check_dominance, such
	// buffers are set aside at offset 0 (or their fixed offset) and the
	// rest is solved as upstream solves it without them.
	keep := make([]int, 0, len(bufs))
	for i, b := range bufs {
		if b.size > 0 || !s.params.CheckDominance {
			keep = append(keep, i)
		}
	}
	solveBufs := bufs
	if len(keep) < len(bufs) {
		solveBufs = make([]buffer, len(keep))
		for k, i := range keep {
			solveBufs[k] = bufs[i]
		}
	}
	eff := func(a, b int) (int64, bool) { return workloads.EffectiveSize(p, keep[a], keep[b]) }
	res, err := solveProblem(ctx, solveBufs, eff, capacity, &s.params, s.timeout)
	if err != nil {
		return nil, err
	}
	offs := res.Offsets
	if len(keep) < len(bufs) {
		offs = make([]int64, len(bufs))
		for i, b := range bufs {
			offs[i] = max(b.fixed, 0)
		}
		for k, i := range keep {
			offs[i] = res.Offsets[k]
		}
	}
	plan := &strategies.Plan{Offsets: offs, Footprint: strategies.Footprint(p.Buffers, offs), Nodes: res.Nodes}
	if s.params.MinimizeCapacity && res.Complete && p.Forms()&(workloads.FormAlign|workloads.FormGaps|workloads.FormFixed) == 0 {
		plan.Bound, plan.Optimal = res.Height, true
	}
	return plan, nil
}

// convert returns p's buffers in MiniMalloc's terms (p's forms are
// checked: workloads.CheckForms).
func convert(p *workloads.Problem) ([]buffer, error) {
	bufs := make([]buffer, len(p.Buffers))
	for i, b := range p.Buffers {
		switch {
		case b.Size < 0:
			return nil, fmt.Errorf("minimalloc: buffer %d (id %d) has negative size %d", i, b.ID, b.Size)
		case b.First > b.Last:
			return nil, fmt.Errorf("minimalloc: buffer %d (id %d) has first task %d after last task %d", i, b.ID, b.First, b.Last)
		}
		mb := buffer{lower: int64(b.First), upper: int64(b.Last) + 1, size: b.Size, align: p.AlignOf(i), fixed: noOffset}
		if f, ok := p.FixedOf(i); ok {
			mb.fixed = f
		}
		for _, g := range p.GapsOf(i) {
			mg := gap{lower: int64(g.First), upper: int64(g.Last) + 1}
			if g.Window != nil {
				mg.hasWin, mg.win = true, window{g.Window.Lo, g.Window.Hi}
			}
			mb.gaps = append(mb.gaps, mg)
		}
		bufs[i] = mb
	}
	return bufs, nil
}

// stackedCapacity is membench's capacity for a problem that states none:
// every buffer stacked, each aligned, above the highest fixed buffer.
func stackedCapacity(bufs []buffer) int64 {
	var top, sum int64
	for _, b := range bufs {
		if b.fixed != noOffset {
			top = max(top, b.fixed+b.size)
		}
		sum = satAdd(sum, satAdd(b.size, b.align-1))
	}
	return satAdd(top, sum)
}

// satAdd adds non-negative a and b, saturating at MaxInt64/4 so that the
// search's sums of offsets and sizes cannot overflow.
func satAdd(a, b int64) int64 {
	const limit = math.MaxInt64 / 4
	if a > limit-b {
		return limit
	}
	return a + b
}

// solveProblem runs MiniMalloc's solver on bufs: in capacity mode a plan
// within capacity, in minimise mode the binary search below it. eff(a, b)
// is buffer a's effective size below b (upstream's Buffer::effective_size:
// workloads.EffectiveSize, the rule membench shares).
func solveProblem(ctx context.Context, bufs []buffer, eff func(a, b int) (int64, bool), capacity int64, params *solverParams, timeout time.Duration) (*result, error) {
	return solveTuned(ctx, bufs, eff, capacity, params, timeout, tuning{scanMax: scanLimit})
}

// tuning chooses among representations that give the same search: the
// sweep's (implicit, as sweep's argument), the partition size from
// which the order is kept in a tree (scanMax), and whether an implicit
// sweep's search keeps the section floors from the start (floors)
// rather than first try with a bound on them (solver.bounded). Tests set
// them to reach every path on small problems.
type tuning struct {
	implicit int
	scanMax  int
	floors   bool
}

// solveTuned is solveProblem with the representations chosen by t.
func solveTuned(ctx context.Context, bufs []buffer, eff func(a, b int) (int64, bool), capacity int64, params *solverParams, timeout time.Duration, t tuning) (*result, error) {
	r := &run{ctx: ctx, start: time.Now(), timeout: timeout}
	sw, err := sweep(bufs, eff, ctx.Err, t.implicit)
	if err != nil {
		return nil, err
	}
	res := &result{Capacity: capacity, Complete: true}
	finish := func(err error) (*result, error) {
		res.Nodes, res.Backtracks = r.nodes, r.backtracks
		if r.cancelled {
			return nil, ctx.Err()
		}
		return res, err // res carries the counters even on failure
	}
	if !params.MinimizeCapacity {
		offs, h, st := newSolver(params, r, bufs, capacity, sw, t).solve()
		switch st {
		case stOK:
			res.Offsets, res.Height = offs, h
			return finish(nil)
		case stDeadline:
			res.Complete = false
			return finish(fmt.Errorf("minimalloc: %w within capacity %d: timed out after %v", ErrNoSolution, capacity, timeout))
		}
		return finish(fmt.Errorf("minimalloc: %w within capacity %d (proved)", ErrNoSolution, capacity))
	}
	lo, hi := int64(0), capacity
	for lo <= hi {
		mid := lo + (hi-lo)/2
		offs, h, st := newSolver(params, r, bufs, mid, sw, t).solve()
		if r.cancelled {
			return finish(nil)
		}
		if st != stOK {
			if st == stDeadline {
				res.Complete = false
			}
			lo = mid + 1
			continue
		}
		res.Offsets, res.Height = offs, h
		hi = h - 1
	}
	if res.Offsets == nil {
		if !res.Complete {
			return finish(fmt.Errorf("minimalloc: %w within capacity %d: timed out after %v", ErrNoSolution, capacity, timeout))
		}
		return finish(fmt.Errorf("minimalloc: %w within capacity %d (proved)", ErrNoSolution, capacity))
	}
	return finish(nil)
}
