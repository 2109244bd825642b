package workloads

// The pairwise conflict rule of problems with gaps (DESIGN §15), shared by
// strategies.Validate and every planner that honours gaps, so that they
// agree on what a valid plan is.
//
// It is MiniMalloc's rule (google/minimalloc, src/minimalloc.cc,
// Buffer::effective_size, and src/validator.cc, revision 9f5cf81), stated
// in membench's inclusive tasks. Over the tasks both buffers are live,
// each buffer uses a window of its bytes at every task: all of them,
// [0, Size), outside its gaps; a gap's Window inside it; none in a gap
// whose Window is nil. The effective size of a below b is the largest, over
// the tasks where both use a window, of a's window's end minus b's
// window's start: b may start at or above a's offset plus that. When no
// task has both using a window there is none, and the two never conflict.
// Two placed buffers conflict only when neither sits high enough above
// the other.
//
// Upstream sweeps half-open time points with ties ordered start, gap end,
// gap start, end; for gaps that are sorted, disjoint, non-empty and inside
// the lifetime (CheckForms), which is every gap membench accepts, that
// makes a buffer's window at each task exactly the one described above.

// EffectiveSize returns buffer i's effective size below buffer j: the
// least distance from i's offset up to j's at which j may sit above i
// (MiniMalloc's Buffer::effective_size of i given j). ok is false when
// there is no task at which both use memory; then they never conflict.
// Without gaps on either buffer it is i's size when their lifetimes meet.
// The result may be zero or negative where windows allow j to sit below
// i's offset. p's gaps must pass CheckForms.
func EffectiveSize(p *Problem, i, j int) (size int64, ok bool) {
	a, b := p.Buffers[i], p.Buffers[j]
	if !Conflicts(a, b) {
		return 0, false
	}
	ga, gb := p.GapsOf(i), p.GapsOf(j)
	if len(ga) == 0 && len(gb) == 0 {
		return a.Size, true
	}
	ta := timeline{size: a.Size, last: a.Last, gaps: ga}
	tb := timeline{size: b.Size, last: b.Last, gaps: gb}
	t, end := max(a.First, b.First), min(a.Last, b.Last)
	for {
		ea, _, hiA, onA := ta.at(t)
		eb, loB, _, onB := tb.at(t)
		if onA && onB {
			if d := hiA - loB; !ok || d > size {
				size, ok = d, true
			}
		}
		e := min(ea, eb)
		if e >= end {
			return size, ok
		}
		t = e + 1
	}
}

// Collide reports whether buffers i and j, at offsets oi and oj, conflict
// under the rule above: neither sits at or above the other's offset plus
// the other's effective size below it (MiniMalloc's validator). A
// zero-size buffer conflicts with nothing, as everywhere in membench
// (MiniMalloc's validator would keep it off another's bytes; every plan
// valid there is valid here).
func Collide(p *Problem, i, j int, oi, oj int64) bool {
	if p.Buffers[i].Size == 0 || p.Buffers[j].Size == 0 {
		return false
	}
	si, ok := EffectiveSize(p, i, j)
	if !ok || oi+si <= oj {
		return false
	}
	sj, ok := EffectiveSize(p, j, i)
	return ok && oj+sj > oi
}

// timeline walks one buffer's windows forward in time.
type timeline struct {
	size int64
	last int
	gaps []Gap
	k    int // gaps before k end before the task last asked about
}

// at returns the window the buffer uses at task t (a task of its
// lifetime, no earlier than the last asked about): [lo, hi), or on false
// when it uses none; and end, the last task through which that holds.
func (tl *timeline) at(t int) (end int, lo, hi int64, on bool) {
	for tl.k < len(tl.gaps) && tl.gaps[tl.k].Last < t {
		tl.k++
	}
	if tl.k == len(tl.gaps) {
		return tl.last, 0, tl.size, true
	}
	g := tl.gaps[tl.k]
	if t < g.First {
		return g.First - 1, 0, tl.size, true
	}
	if g.Window == nil {
		return g.Last, 0, 0, false
	}
	return g.Last, g.Window.Lo, g.Window.Hi, true
}
