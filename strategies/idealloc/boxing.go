package idealloc

import (
	"cmp"
	"container/heap"
	"math"
	"slices"
	"sort"
)

// job is idealloc's Job: an original buffer (contents nil) or a box of
// jobs. Lifetimes are open at both ends: a job is live at t when birth <
// t < death.
type job struct {
	size, birth, death int
	id                 uint32
	contents           []*job
	originals          uint32 // originals boxed somewhere inside
}

func (j *job) original() bool            { return j.contents == nil }
func (j *job) liveAt(t int) bool         { return j.birth < t && j.death > t }
func (j *job) livesWithin(a, b int) bool { return j.birth >= a && j.death <= b }

// event is a birth or a death; its order is idealloc's Event Ord: earlier
// first, deaths before births at a time, and of two births at a time the
// one that dies later first.
type event struct {
	j     *job
	birth bool
	time  int
}

func eventCmp(a, b event) int {
	if c := cmp.Compare(b.time, a.time); c != 0 {
		return c
	}
	switch {
	case a.birth && b.birth:
		return cmp.Compare(a.j.death, b.j.death)
	case a.birth == b.birth:
		return 0
	case a.birth:
		return -1
	}
	return 1
}

// events is get_events: each job pushes its birth, then its death.
func events(jobs []*job) *rheap[event] {
	h := newHeap(eventCmp)
	h.data = make([]event, 0, 2*len(jobs))
	for _, j := range jobs {
		h.push(event{j, true, j.birth})
		h.push(event{j, false, j.death})
	}
	return h
}

// maxLoad is get_load: the most bytes live at once.
func maxLoad(jobs []*job) int {
	run, top := 0, 0
	ev := events(jobs)
	for e, ok := ev.pop(); ok; e, ok = ev.pop() {
		if e.birth {
			run += e.j.size
			top = max(top, run)
		} else {
			run -= e.j.size
		}
	}
	return top
}

type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// igc is interval_graph_coloring: in event order, each born job takes the
// lowest free row; each row's jobs are in birth-event order.
func igc(jobs []*job) [][]*job {
	var rows [][]*job
	free := &intHeap{0}
	top := 0
	rowOf := make(map[*job]int, len(jobs))
	ev := events(jobs)
	for e, ok := ev.pop(); ok; e, ok = ev.pop() {
		if e.birth {
			r := heap.Pop(free).(int)
			rowOf[e.j] = r
			if r < len(rows) {
				rows[r] = append(rows[r], e.j)
			} else {
				rows = append(rows, []*job{e.j})
			}
			if free.Len() == 0 {
				top++
				heap.Push(free, top)
			}
		} else {
			heap.Push(free, rowOf[e.j])
			delete(rowOf, e.j)
		}
	}
	return rows
}

// gapFinder adds to pts the ends of the gaps between a row's jobs within
// (alpha, omega): gap_finder.
func gapFinder(row []*job, alpha, omega int, pts map[int]bool) {
	start, open := alpha, true
	ev := events(row)
	for e, ok := ev.pop(); ok; e, ok = ev.pop() {
		if e.birth {
			if open && start < e.time {
				pts[start], pts[e.time] = true, true
			}
			open = false
		} else {
			start, open = e.time, true
		}
	}
	if start < omega {
		pts[start] = true
	}
}

// instance is idealloc's Instance: jobs and their least and greatest
// size, which the top instance has set (with its dummy) rather than
// computed.
type instance struct {
	jobs       []*job
	hmin, hmax int
}

func newInstance(jobs []*job) *instance {
	in := &instance{jobs: jobs, hmin: math.MaxInt, hmax: 0}
	for _, j := range jobs {
		in.hmin = min(in.hmin, j.size)
		in.hmax = max(in.hmax, j.size)
	}
	return in
}

// powi is LLVM's powi (compiler-rt __powidf2 and its inline expansion):
// binary exponentiation, whose rounding differs from math.Pow.
func powi(a float64, n int) float64 {
	r := 1.0
	for {
		if n&1 != 0 {
			r *= a
		}
		n /= 2
		if n == 0 {
			return r
		}
		a *= a
	}
}

// muLim is (√5 − 1)/2, the bound on μ in Buchsbaum et al.'s Theorem 16.
var muLim = (math.Sqrt(5) - 1) / 2

// ctrlPrelude returns (small end, big end, lg²r) of the ε range.
func (in *instance) ctrlPrelude() (small, big, lg2r float64) {
	r := float64(in.hmax) / float64(in.hmin)
	lgr := math.Log2(r)
	lg2r = powi(lgr, 2)
	small = math.Pow(powi(lg2r, 7)/r, 1.0/6.0)
	return small, muLim * lg2r, lg2r
}

// safety is get_safety_info: r, μ = ε/lg²r, the box height H and whether
// another round of Theorem 16's first phase keeps boxing's invariants.
func (in *instance) safety(eps float64) (r, mu, h float64, safe bool) {
	_, _, lg2r := in.ctrlPrelude()
	mu = eps / lg2r
	h = math.Ceil(powi(mu, 5) * float64(in.hmax) / lg2r)
	target := math.Floor(mu * h)
	return float64(in.hmax) / float64(in.hmin), mu, h, mu < muLim && target >= float64(in.hmin)
}

// splitByHeight parts jobs into those of size at most ceil and the rest,
// each in order.
func splitByHeight(jobs []*job, ceil int) (small, high []*job) {
	for _, j := range jobs {
		if j.size <= ceil {
			small = append(small, j)
		} else {
			high = append(high, j)
		}
	}
	return small, high
}

// toInt is Rust's `f as usize`: truncation, saturating, NaN to 0.
func toInt(f float64) int {
	switch {
	case f != f || f <= 0:
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt
	}
	return int(f)
}

// rogue is idealloc's variant of Theorem 16's first phase: while safe,
// box the small jobs with Corollary 15 and go on with the big ones and
// the boxes.
func (s *solver) rogue(in *instance, eps float64) *instance {
	for {
		_, mu, h, safe := in.safety(eps)
		if !safe {
			return in
		}
		small, high := splitByHeight(in.jobs, toInt(math.Floor(mu*h)))
		boxed := s.c15(newInstance(small), h, mu)
		in = newInstance(append(high, boxed...))
	}
}

// c15 is Corollary 15: jobs go in buckets of sizes ((1+ε)^(i−1), (1+ε)^i],
// each boxed by Theorem 2 into boxes of height H; buckets in increasing
// size.
func (s *solver) c15(in *instance, h float64, eps float64) []*job {
	var out []*job
	rest := slices.Clone(in.jobs)
	sizes := make([]int, len(rest))
	for i, j := range rest {
		sizes[i] = j.size
	}
	slices.Sort(sizes)
	lo := 0 // sizes[lo:] are the sizes of rest
	prev := 1 / (1 + eps)
	for i := 0; len(rest) > 0; i++ {
		s.check()
		hi := powi(1+eps, i)
		// Some job of size in (prev, hi]? rest holds sizes above the
		// last split, sorted in sizes[lo:].
		k := lo + sort.Search(len(sizes)-lo, func(k int) bool { return float64(sizes[lo+k]) > prev })
		if k < len(sizes) && float64(sizes[k]) <= hi {
			split := toInt(math.Floor(hi))
			var bucket []*job
			bucket, rest = splitByHeight(rest, split)
			for lo < len(sizes) && sizes[lo] <= split {
				lo++
			}
			hp := toInt(math.Floor(h / float64(split)))
			out = append(out, s.t2(bucket, hp, toInt(h), eps, nil)...)
		}
		prev = hi
	}
	return out
}

// t2ctrl is T2Control: a bounding interval and its critical points.
type t2ctrl struct {
	lo, hi int
	pts    []int // sorted, distinct
}

// genCrit is T2Control::gen_crit: a random point in (left, right) next
// to a birth or death, so that some job is live there.
func (s *solver) genCrit(jobs []*job, left, right int) int {
	pts := critCandidates(jobs, left, right)
	if len(pts) == 0 {
		s.fail("no time in (%d, %d) where a job is live", left, right)
	}
	return pts[s.rng.below(len(pts))]
}

// critCandidates lists gen_crit's candidates in event order.
func critCandidates(jobs []*job, left, right int) []int {
	var pts []int
	ev := events(jobs)
	for e, ok := ev.pop(); ok; e, ok = ev.pop() {
		c := e.time - 1
		if e.birth {
			c = e.time + 1
		}
		if c > left && c < right {
			pts = append(pts, c)
		}
	}
	return pts
}

// t2 is Buchsbaum et al.'s Theorem 2: jobs live at the critical points
// are boxed (Lemma 1, then interval-graph colouring of the rest, h rows
// a box); each interval between critical points recurses with points
// taken from the colouring's gaps.
func (s *solver) t2(jobs []*job, h, hReal int, eps float64, ctrl *t2ctrl) []*job {
	s.check()
	if h == 0 {
		s.fail("Theorem 2 called with box height 0")
	}
	if ctrl == nil {
		lo, hi := math.MaxInt, 0
		for _, j := range jobs {
			lo, hi = min(lo, j.birth), max(hi, j.death)
		}
		mid := s.genCrit(jobs, lo, hi)
		ctrl = &t2ctrl{lo: lo, hi: hi, pts: sortedSet(map[int]bool{lo: true, hi: true, mid: true})}
	}
	live, xis := splitByLiveness(jobs, ctrl.pts)
	var out, unresolved []*job
	for _, ri := range splitRis(live, ctrl.pts, nil) {
		boxed, un := s.lemma1(ri, h, hReal, eps)
		unresolved = append(unresolved, un...)
		out = append(out, boxed...)
	}
	alloc := map[int]bool{}
	var buf []*job
	for n, row := range igc(unresolved) {
		gapFinder(row, ctrl.lo, ctrl.hi, alloc)
		buf = append(buf, row...)
		if (n+1)%h == 0 {
			out = append(out, s.newBox(buf, hReal))
			buf = nil
		}
	}
	if len(buf) > 0 {
		out = append(out, s.newBox(buf, hReal))
	}
	allocPts := sortedSet(alloc)
	for _, x := range xis {
		lo, hi := ctrl.pts[x.q], ctrl.pts[x.q+1]
		crit := map[int]bool{lo: true, hi: true}
		ready := false
		for _, v := range allocPts {
			if v <= lo {
				continue
			}
			if v >= hi {
				break
			}
			if !ready && anyLiveAt(x.jobs, v) {
				ready = true
			}
			crit[v] = true
		}
		if !ready {
			for {
				c := s.genCrit(x.jobs, lo, hi)
				if !crit[c] {
					crit[c] = true
					break
				}
				if !slices.ContainsFunc(critCandidates(x.jobs, lo, hi), func(v int) bool { return !crit[v] }) {
					// Upstream would draw forever.
					s.fail("no new critical point in (%d, %d)", lo, hi)
				}
			}
		}
		out = append(out, s.t2(x.jobs, h, hReal, eps, &t2ctrl{lo: lo, hi: hi, pts: sortedSet(crit)})...)
	}
	return out
}

func anyLiveAt(jobs []*job, t int) bool {
	for _, j := range jobs {
		if j.liveAt(t) {
			return true
		}
	}
	return false
}

func sortedSet(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for v := range m {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// xi is one X_i of Theorem 2: the jobs living within (pts[q], pts[q+1]).
type xi struct {
	q    int
	jobs []*job
}

// splitByLiveness is Instance::split_by_liveness: in birth order, jobs
// living within one interval of pts go to that interval's X_i, jobs live
// at a point to the returned live set. The sort is stable (upstream's
// sort_unstable leaves ties to its sort's internals).
func splitByLiveness(in []*job, pts []int) ([]*job, []xi) {
	jobs := slices.Clone(in)
	slices.SortStableFunc(jobs, func(a, b *job) int { return cmp.Compare(a.birth, b.birth) })
	var live []*job
	byQ := map[int][]*job{}
	idx := 0
points:
	for q := 0; q+1 < len(pts); q++ {
		tq, next := pts[q], pts[q+1]
		if q+1 == len(pts)-1 {
			if idx < len(jobs) {
				byQ[q] = append(byQ[q], jobs[idx:]...)
			}
			break
		}
		for idx < len(jobs) {
			j := jobs[idx]
			switch {
			case j.livesWithin(tq, next):
				byQ[q] = append(byQ[q], j)
			case j.liveAt(next):
				live = append(live, j)
			default:
				continue points
			}
			idx++
		}
		break
	}
	qs := make([]int, 0, len(byQ))
	for q := range byQ {
		qs = append(qs, q)
	}
	slices.Sort(qs)
	out := make([]xi, len(qs))
	for i, q := range qs {
		out[i] = xi{q, byQ[q]}
	}
	return live, out
}

// splitRis forms Theorem 2's R_i groups: the jobs live at the middle
// point, then those before it and those after it, recursively.
func splitRis(jobs []*job, pts []int, out [][]*job) [][]*job {
	if len(pts) < 3 {
		return append(out, jobs)
	}
	q := len(pts) - 2
	mid := (q + 1) / 2
	t := pts[mid]
	var at, before, after []*job
	for _, j := range jobs {
		switch {
		case j.liveAt(t):
			at = append(at, j)
		case j.death <= t:
			before = append(before, j)
		default:
			after = append(after, j)
		}
	}
	out = append(out, at)
	if len(before) > 0 {
		out = splitRis(before, pts[:mid], out)
	}
	if len(after) > 0 {
		out = splitRis(after, pts[mid+1:], out)
	}
	return out
}

// newBox is Job::new_box: a job of the given height spanning contents.
func (s *solver) newBox(contents []*job, height int) *job {
	b := &job{size: height, birth: math.MaxInt, contents: contents, id: s.nextID}
	s.nextID--
	for _, j := range contents {
		b.birth = min(b.birth, j.birth)
		b.death = max(b.death, j.death)
		if j.original() {
			b.originals++
		} else {
			b.originals += j.originals
		}
	}
	return b
}

// ordered is an IndexMap<u32, Arc<Job>> used only by pop (the last entry)
// and shift_remove (order kept).
type ordered struct {
	jobs    []*job
	gone    map[uint32]bool
	removed int
}

func (o *ordered) size() int { return len(o.jobs) - o.removed }

func (o *ordered) pop() *job {
	for {
		j := o.jobs[len(o.jobs)-1]
		o.jobs = o.jobs[:len(o.jobs)-1]
		if o.gone[j.id] {
			o.removed--
			delete(o.gone, j.id)
			continue
		}
		return j
	}
}

func (o *ordered) remove(id uint32) {
	o.gone[id] = true
	o.removed++
}

func vertCmp(a, b *job) int { return cmp.Compare(a.death, b.death) }
func horCmp(a, b *job) int  { return cmp.Compare(b.birth, a.birth) }

// stripCut is strip_cuttin: up to take jobs popped from source (and
// removed from mirror), in a heap ordered by c.
func stripCut(source, mirror *ordered, take int, c func(a, b *job) int) *rheap[*job] {
	h := newHeap(c)
	for n := 0; n < take && source.size() > 0; n++ {
		j := source.pop()
		mirror.remove(j.id)
		h.push(j)
	}
	return h
}

// lemma1 is Buchsbaum et al.'s Lemma 1: with enough jobs, two outer strips
// (earliest births, latest deaths) are left unresolved and the inner
// strips, cut alternately, are boxed h jobs a box.
func (s *solver) lemma1(in []*job, h, hReal int, e float64) ([]*job, []*job) {
	outer := h * toInt(math.Ceil(1/powi(e, 2)))
	total := len(in)
	if total <= 2*outer {
		return nil, in
	}
	horJobs := slices.Clone(in)
	slices.SortStableFunc(horJobs, func(a, b *job) int { return cmp.Compare(a.death, b.death) })
	hor := &ordered{jobs: horJobs, gone: map[uint32]bool{}}
	vertJobs := slices.Clone(in)
	slices.Reverse(vertJobs)
	vert := &ordered{jobs: vertJobs, gone: map[uint32]bool{}}
	outerVert := stripCut(vert, hor, outer, vertCmp)
	outerHor := stripCut(hor, vert, outer, horCmp)
	total -= 2 * outer
	inner := h * toInt(math.Ceil(1/e))
	var strips []*rheap[*job] // verticals, then horizontals
	var hors []*rheap[*job]
	for done := 0; done < total; {
		v := stripCut(vert, hor, inner, vertCmp)
		done += v.len()
		strips = append(strips, v)
		if done == total {
			break
		}
		hs := stripCut(hor, vert, inner, horCmp)
		done += hs.len()
		hors = append(hors, hs)
	}
	strips = append(strips, hors...)
	var boxed []*job
	for _, st := range strips {
		var buf []*job
		for n := 0; st.len() > 0; {
			j, _ := st.pop()
			buf = append(buf, j)
			n++
			if n == h || st.len() == 0 {
				boxed = append(boxed, s.newBox(buf, hReal))
				buf, n = nil, 0
			}
		}
	}
	unresolved := append(slices.Clone(outerVert.data), outerHor.data...)
	return boxed, unresolved
}
