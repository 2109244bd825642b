// Package idealloc is the strategy `idealloc`: a port of idealloc
// (github.com/cappadokes/idealloc, MIT, commit a21f84d; the paper
// "Futureproof Static Memory Planning", arXiv 2504.04874), from
// coreba/src/algo/mod.rs (idealloc), coreba/src/analyze.rs
// (prelude_analysis, init_rogue), coreba/src/algo/boxing.rs (rogue, c_15,
// t_2, lemma_1), coreba/src/algo/placement.rs (get_loose_placement,
// do_best_fit), coreba/src/instance.rs, coreba/src/jobset.rs,
// coreba/src/job.rs and coreba/src/helpe.rs.
//
// The rules, in our words. A buffer live in tasks [First, Last] is a job
// born at First and dying at Last+1, live strictly between (idealloc's
// exclusive ends, as its ExCSV reader takes MiniMalloc's CSV); idealloc
// assumes every job is live at some whole time, so when a buffer lives a
// single task all times are doubled. Zero-size buffers, which idealloc
// refuses, sit at offset 0 outside the instance.
//
//   - No two jobs overlap: all at offset 0.
//   - All jobs have one size: interval-graph colouring (each job in event
//     order takes the lowest free row), then best fit in row order.
//   - Otherwise the bootstrap: jobs by size, then lifetime, decreasing,
//     each at the lowest gap among its placed neighbours (first fit). Its
//     footprint is the one to beat. If the largest size is under about
//     2,216 times the smallest, a dummy job that large, live throughout,
//     joins the instance (idealloc's guarantee that its ε range is not
//     empty). For ε from the range's small end, stepping 1% of the way to
//     its big end until three steps bring no improvement, Buchsbaum et
//     al.'s Theorem 16 first phase ("rogue") boxes the small jobs
//     (Corollary 15: size buckets of ratio 1+μ, each boxed by Theorem 2,
//     which draws random critical points, strips jobs with Lemma 1 and
//     stacks the rest by interval-graph colouring) until that would
//     break boxing's invariants; the ε whose result has the least size
//     ratio wins. Then, up to max_lives times while the footprint is
//     above max_frag times the peak load: box what is left into one
//     height with Corollary 15, unbox (same-size rows by colouring,
//     boxes of one size by colouring, boxes live one at a time at one
//     offset, mixed boxes by size class), and first-fit the originals in
//     the unboxed offset order; keep it if it beats the best so far; for
//     the next try rerun rogue at the chosen ε.
//
// Where upstream leaves the outcome to chance this port fixes it, so a
// plan is a function of the problem and seed: Theorem 2's random points
// come from SplitMix64 seeded with seed (upstream: rand's thread_rng,
// seeded from the OS); Rust HashMap iterations (size buckets, X_i groups,
// the registry the bootstrap sorts) go in increasing key, buffer order
// breaking the bootstrap's ties; rayon's parallel merges go in that same
// order; the two unstable sorts (jobs by birth in Theorem 2, by death in
// Lemma 1) are stable. Rust BinaryHeap's tie order, which decides the
// order of equal offsets and events, is kept (rheap.go). With those
// choices made the same way in upstream's code, it returns these plans
// (testdata/*.golden, from upstream built with those patches).
//
// Per-buffer alignment is refused: upstream aligns only the gaps it
// tries, and a job placed above its neighbours keeps an unaligned
// offset. A problem alignment rounds every size up (idealloc's allocated
// size), so offsets stay aligned; Plan.Arena is then upstream's own
// makespan. The start address, which only moves aligned offsets, is not
// a parameter.
//
// Upstream stores the interference graph; past listPairs overlapping
// pairs (idealloc's Y_1 has 180 million, 1.4 GB) this does not, and each
// fit pass finds a job's placed neighbours through an index over time
// instead (kernel.CompIndex). The first or smallest fitting gap is the
// same either way (TestIndexPathSame).
package idealloc

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"membench/strategies"
	"membench/strategies/internal/kernel"
	"membench/workloads"
)

func init() {
	strategies.Register(strategies.Info{
		Name:    "idealloc",
		Runtime: "idealloc",
		Kind:    strategies.Offsets,
		Doc: "idealloc (Lamprakos et al.): Buchsbaum et al.'s boxing with random critical points, " +
			"unboxed and first-fit, against a size-lifetime first-fit bootstrap",
		Arena: "idealloc's makespan counts sizes rounded up to the alignment",
		Params: []workloads.ParamDoc{
			{Name: "max_frag", Default: "1.0", Doc: "stop once the footprint is within this factor of the peak load (>= 1)"},
			{Name: "max_lives", Default: "1", Doc: "boxing tries allowed to beat the bootstrap"},
			{Name: "seed", Default: "0", Doc: "seed of the random critical points (SplitMix64)"},
		},
		New: newIdealloc,
	})
}

func newIdealloc(args *workloads.Args) (strategies.Strategy, error) {
	frag := args.Float("max_frag", 1.0)
	lives := args.Int64("max_lives", 1)
	seed := args.Int64("seed", 0)
	switch {
	case !(frag >= 1) || math.IsInf(frag, 0):
		return nil, workloads.Usagef("idealloc: parameter max_frag=%v: want a number >= 1", frag)
	case lives < 0 || lives > math.MaxUint32:
		return nil, workloads.Usagef("idealloc: parameter max_lives=%d: want 0 to %d", lives, uint32(math.MaxUint32))
	}
	return ideal{frag: frag, lives: int(lives), seed: uint64(seed), maxPairs: listPairs}, nil
}

type ideal struct {
	frag     float64
	lives    int
	seed     uint64
	maxPairs int64 // see listPairs
}

func (ideal) Name() string { return "idealloc" }

// splitmix is SplitMix64.
type splitmix struct{ s uint64 }

func (r *splitmix) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// below returns a draw in [0, n): next() mod n.
func (r *splitmix) below(n int) int { return int(r.next() % uint64(n)) }

// failure carries an error out of the recursion to Plan.
type failure struct{ err error }

// solver holds one run's state.
type solver struct {
	ctx    context.Context
	rng    splitmix
	nextID uint32
	calls  int
	// The originals, indexed by id: size, offset, the try that last
	// placed it, and the jobs overlapping it.
	size    []int
	off     []int
	placed  []uint32
	nbrAt   []int // job id's neighbours are nbrs[nbrAt[id]:nbrAt[id+1]]
	nbrs    []int32
	scratch []int32
	// Past maxPairs overlapping pairs there is no graph (nbrs is nil):
	// each fit pass indexes the originals it places over time instead.
	maxPairs int64
	proto    *kernel.CompIndex
	tasks    []kernel.Task
	comps    []kernel.Comp
}

// listPairs is the most overlapping pairs for which the interference
// graph is stored (8 bytes a pair); idealloc's Y_1 has 180 million.
const listPairs = 1 << 22

func (s *solver) fail(format string, args ...any) {
	panic(failure{fmt.Errorf("idealloc: "+format, args...)})
}

// check aborts when the context ends; it asks every 256 calls.
func (s *solver) check() {
	s.calls++
	if s.calls&255 == 0 {
		if err := s.ctx.Err(); err != nil {
			panic(failure{err})
		}
	}
}

func (ia ideal) Plan(ctx context.Context, p *workloads.Problem) (plan *strategies.Plan, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	align := max(p.Alignment, 1)
	var jobs []*job
	var bufOf []int
	single := false
	for i, b := range p.Buffers {
		switch {
		case b.Size < 0:
			return nil, fmt.Errorf("idealloc: buffer %d (id %d) has negative size %d", i, b.ID, b.Size)
		case b.First > b.Last:
			return nil, fmt.Errorf("idealloc: buffer %d (id %d) has first task %d after last task %d", i, b.ID, b.First, b.Last)
		case b.First < 0 || b.Last >= math.MaxInt32:
			return nil, fmt.Errorf("idealloc: buffer %d (id %d): tasks %d..%d out of range", i, b.ID, b.First, b.Last)
		case b.Size > math.MaxInt64/4:
			return nil, fmt.Errorf("idealloc: buffer %d (id %d): size %d too large", i, b.ID, b.Size)
		case b.Size == 0:
			continue
		}
		single = single || b.First == b.Last
		sz := int((b.Size + align - 1) / align * align)
		jobs = append(jobs, &job{size: sz, birth: b.First, death: b.Last + 1, id: uint32(len(jobs))})
		bufOf = append(bufOf, i)
	}
	if len(jobs) >= math.MaxUint32/2 {
		return nil, fmt.Errorf("idealloc: %d buffers is too many", len(jobs))
	}
	if single {
		for _, j := range jobs {
			j.birth, j.death = 2*j.birth, 2*j.death
		}
	}
	plan = &strategies.Plan{Offsets: make([]int64, len(p.Buffers))}
	if len(jobs) == 0 {
		return plan, nil
	}
	s := &solver{ctx: ctx, rng: splitmix{ia.seed}, nextID: math.MaxUint32, maxPairs: ia.maxPairs}
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(failure)
			if !ok {
				panic(r)
			}
			plan, err = nil, f.err
		}
	}()
	offs, makespan := s.run(jobs, ia.frag, ia.lives)
	for k, i := range bufOf {
		plan.Offsets[i] = int64(offs[k])
	}
	plan.Footprint = strategies.Footprint(p.Buffers, plan.Offsets)
	if int64(makespan) != plan.Footprint {
		plan.Arena = int64(makespan)
	}
	return plan, nil
}

// run is idealloc(): the offsets of jobs (indexed by id) and the
// makespan.
func (s *solver) run(jobs []*job, frag float64, lives int) ([]int, int) {
	n := len(jobs)
	s.size = make([]int, n)
	s.off = make([]int, n)
	s.placed = make([]uint32, n)
	for _, j := range jobs {
		s.size[j.id] = j.size
	}
	s.overlaps(jobs)
	// prelude_analysis: one pass over the events finds the peak load,
	// the interference graph, whether jobs overlap at all and whether
	// they share one size.
	var (
		run, load, hmin, hmax, maxDeath int
		lastBirth, overlap, sameSizes   bool
		maxID                           uint32
		seen                            = map[int]bool{}
	)
	hmin = math.MaxInt
	ev := events(jobs)
	for e, ok := ev.pop(); ok; e, ok = ev.pop() {
		s.check()
		j := e.j
		if !e.birth {
			run -= j.size
			if !overlap {
				lastBirth = false
			}
			maxDeath = max(maxDeath, j.death)
			continue
		}
		hmin, hmax, maxID = min(hmin, j.size), max(hmax, j.size), max(maxID, j.id)
		run += j.size
		load = max(load, run)
		seen[j.size] = true
		if lastBirth && !overlap && !sameSizes {
			overlap = true
			if len(seen) == 1 {
				sameSizes = !slices.ContainsFunc(jobs, func(o *job) bool { return o.size != j.size })
				delete(seen, j.size)
			}
		}
		lastBirth = true
	}
	switch {
	case !overlap:
		return s.off, hmax
	case sameSizes:
		loose := newHeap(s.offCmp)
		for r, row := range igc(jobs) {
			for _, j := range row {
				s.off[j.id] = r * jobs[0].size
				loose.push(int32(j.id))
			}
		}
		return s.off, s.bestFit(loose, 0, math.MaxInt, false)
	}
	// The bootstrap: size, then lifetime, decreasing, first fit.
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		ja, jb := jobs[a], jobs[b]
		if c := cmp.Compare(jb.size, ja.size); c != 0 {
			return c
		}
		return cmp.Compare(jb.death-jb.birth, ja.death-ja.birth)
	})
	for k, id := range order {
		s.off[id] = k
	}
	best := s.bestFit(heapFrom(order, s.offCmp), 0, math.MaxInt, true)
	final := slices.Clone(s.off)
	realLoad := load

	in := newInstance(jobs)
	small, big, _ := in.ctrlPrelude()
	dummyID := uint32(math.MaxUint32/2 + 1)
	if small >= big {
		hmax = toInt(math.Ceil(2216.54 * float64(hmin)))
		dummy := &job{size: hmax, birth: 0, death: maxDeath, id: maxID + 1}
		dummyID = dummy.id
		in = &instance{jobs: append(slices.Clone(jobs), dummy)}
	}
	in.hmin, in.hmax = hmin, hmax
	small, big, _ = in.ctrlPrelude()
	if !(small < big) {
		s.fail("empty ε range [%v, %v]", small, big)
	}
	eps, pre := s.initRogue(in, small, big)

	target := toInt(math.Floor(float64(realLoad) * frag))
	_, mu, _, _ := pre.safety(eps)
	if mu > muLim {
		mu = 0.99 * muLim
	}
	finalH := float64(in.hmax) / mu
	for try := uint32(1); lives > 0 && best > target; try++ {
		boxed := s.c15(pre, finalH, mu)
		if len(boxed) == 0 {
			s.fail("boxing returned no jobs")
		}
		loose := s.loose(boxed, 0, ctrlSame, boxed[0].size, dummyID)
		if cur := s.bestFit(loose, try, best, true); cur < best {
			best = cur
			copy(final, s.off)
		}
		lives--
		if lives == 0 || best <= target {
			break
		}
		pre = s.rogue(in, eps)
	}
	return final, best
}

// overlaps prepares bestFit's neighbour lookups: the interference graph,
// or past maxPairs pairs an index over the originals' lifetimes.
func (s *solver) overlaps(jobs []*job) {
	lives := make([]workloads.Buffer, len(jobs))
	for _, j := range jobs {
		lives[j.id] = workloads.Buffer{First: j.birth, Last: j.death - 1}
	}
	if kernel.ConflictPairs(lives) <= s.maxPairs {
		s.interference(jobs)
		return
	}
	ts := kernel.NewTaskSpans(lives, false)
	s.proto = kernel.NewCompIndex(ts)
	s.tasks = make([]kernel.Task, len(jobs))
	for i := range lives {
		s.tasks[i] = ts.TaskOf(i, int64(s.size[i]))
	}
}

// interference builds the interference graph (upstream's, as adjacency
// arrays): the jobs each job overlaps. Two passes over the events, one to
// count and one to fill.
func (s *solver) interference(jobs []*job) {
	n := len(jobs)
	deg := make([]int, n+1)
	live := make([]int32, 0, 64)
	pos := make([]int, n)
	for pass := 0; pass < 2; pass++ {
		ev := events(jobs)
		for e, ok := ev.pop(); ok; e, ok = ev.pop() {
			s.check()
			id := int32(e.j.id)
			if !e.birth {
				p := pos[id]
				last := live[len(live)-1]
				live[p], pos[last] = last, p
				live = live[:len(live)-1]
				continue
			}
			if pass == 0 {
				deg[id] += len(live)
				for _, k := range live {
					deg[k]++
				}
			} else {
				for _, k := range live {
					s.nbrs[deg[id]] = k
					deg[id]++
					s.nbrs[deg[k]] = id
					deg[k]++
				}
			}
			pos[id] = len(live)
			live = append(live, id)
		}
		if pass == 0 {
			s.nbrAt = make([]int, n+1)
			for i := range n {
				s.nbrAt[i+1] = s.nbrAt[i] + deg[i]
			}
			s.nbrs = make([]int32, s.nbrAt[n])
			copy(deg, s.nbrAt)
		}
	}
}

// initRogue is init_rogue: rogue at ε from small towards big, 1% of the
// remaining way a step, until three steps in a row do not lower the size
// ratio; the best ε and its instance.
func (s *solver) initRogue(in *instance, small, big float64) (float64, *instance) {
	e, bestE, minR := small, small, math.MaxFloat64
	best := in
	for tries := 3; tries > 0; {
		t := s.rogue(in, e)
		if r, _, _, _ := t.safety(e); r < minR {
			minR, bestE, best, tries = r, e, t, 3
		} else {
			tries--
		}
		e += (big - e) * 0.01
	}
	return bestE, best
}

// offCmp is PlacedJob's Ord: the lower offset is the greater (a min-heap).
func (s *solver) offCmp(a, b int32) int { return cmp.Compare(s.off[b], s.off[a]) }

// bestFit is do_best_fit: originals in increasing loose offset, each at
// the first (or, unless firstFit, the smallest) gap that fits among its
// neighbours placed in this try, else above them. It gives up, returning
// MaxInt, once the makespan passes limit.
func (s *solver) bestFit(loose *rheap[int32], try uint32, limit int, firstFit bool) int {
	if s.nbrs == nil && s.proto != nil {
		return s.bestFitIndexed(loose, try, limit, firstFit)
	}
	top := 0
	for x, ok := loose.pop(); ok; x, ok = loose.pop() {
		s.check()
		size := s.size[x]
		nb := s.scratch[:0]
		for _, k := range s.nbrs[s.nbrAt[x]:s.nbrAt[x+1]] {
			if s.placed[k] == try+1 {
				nb = append(nb, k)
			}
		}
		slices.SortFunc(nb, func(a, b int32) int { return cmp.Compare(s.off[a], s.off[b]) })
		s.scratch = nb
		runner, smallest, bestOff := 0, math.MaxInt, -1
		for _, k := range nb {
			o := s.off[k]
			if o > runner {
				if o-runner >= size {
					if firstFit {
						bestOff = runner
						break
					}
					if gap := o - runner; gap < smallest {
						smallest, bestOff = gap, runner
					}
				}
			}
			runner = max(runner, o+s.size[k])
		}
		if bestOff < 0 {
			bestOff = runner
		}
		s.off[x] = bestOff
		s.placed[x] = try + 1
		if end := bestOff + size; end > top {
			top = end
			if top > limit {
				return math.MaxInt
			}
		}
	}
	return top
}

// bestFitIndexed is bestFit without the graph: the neighbours placed in
// this pass are in a fresh index over time, whose merged address ranges
// leave the gaps the runner walk sees (a gap is free space between
// ranges, split where a zero-size range sits), so the first or smallest
// fitting gap, lowest among equals, is the same.
func (s *solver) bestFitIndexed(loose *rheap[int32], try uint32, limit int, firstFit bool) int {
	ix := s.proto.EmptyCopy()
	ix.GatherByID()
	top := 0
	for x, ok := loose.pop(); ok; x, ok = loose.pop() {
		s.check()
		size := int64(s.size[x])
		t := &s.tasks[x]
		var off int64
		if firstFit {
			off = ix.FirstFit(t, size, 1)
		} else {
			s.comps = ix.Overlapping(s.comps[:0], t)
			if o, _, found, high := kernel.BestFit(s.comps, size, 1); found {
				off = o
			} else {
				off = high
			}
		}
		ix.Place(t, kernel.Comp{Lo: off, Hi: off + size})
		s.off[x] = int(off)
		s.placed[x] = try + 1
		if end := int(off + size); end > top {
			top = end
			if top > limit {
				return math.MaxInt
			}
		}
	}
	return top
}

// How loose unboxes a group of jobs.
const (
	ctrlSame     = iota // all of one size: colouring rows
	ctrlDisjoint        // live one at a time: one offset
	ctrlUnknown         // find out
)

// loose is get_loose_placement: the originals inside jobs, given offsets
// from start up, in a heap on offset built as upstream builds it.
func (s *solver) loose(jobs []*job, start, ctrl, rowHeight int, dummyID uint32) *rheap[int32] {
	s.check()
	res := newHeap(s.offCmp)
	put := func(j *job, at int) {
		if j.original() {
			if j.id != dummyID {
				s.off[j.id] = at
				res.push(int32(j.id))
			}
			return
		}
		res.appendHeap(s.loose(j.contents, at, ctrlUnknown, 0, dummyID))
	}
	if len(jobs) == 1 {
		put(jobs[0], start)
		return res
	}
	if ctrl == ctrlUnknown {
		ctrl = ctrlSame
		rowHeight = jobs[0].size
		if slices.ContainsFunc(jobs[1:], func(j *job) bool { return j.size != rowHeight }) {
			ctrl = ctrlDisjoint
			ev := events(jobs)
			last := false
			for e, ok := ev.pop(); ok; e, ok = ev.pop() {
				if e.birth && last {
					ctrl = ctrlUnknown
					break
				}
				last = e.birth
			}
		}
	}
	switch ctrl {
	case ctrlSame:
		for _, row := range igc(jobs) {
			res.appendHeap(s.loose(row, start, ctrlDisjoint, 0, dummyID))
			start += rowHeight
		}
	case ctrlDisjoint:
		for _, j := range jobs {
			put(j, start)
		}
	default:
		// Several sizes, overlapping: each size class by colouring, in
		// increasing size.
		classes := map[int][]*job{}
		for _, j := range jobs {
			classes[j.size] = append(classes[j.size], j)
		}
		sizes := make([]int, 0, len(classes))
		for sz := range classes {
			sizes = append(sizes, sz)
		}
		slices.Sort(sizes)
		for _, sz := range sizes {
			for _, row := range igc(classes[sz]) {
				res.appendHeap(s.loose(row, start, ctrlDisjoint, 0, dummyID))
				start += sz
			}
		}
	}
	return res
}
