package workloads

import "slices"

// LoadBound returns the maximum over tasks of the summed size of the
// buffers live at that task (LB_load).
//
// Where every record is well formed (First <= Last, Size >= 0), as it is
// for every problem a planner accepts, the live bytes only grow at a
// first task, so a difference array over the first tasks finds the peak:
// over the tasks themselves when they span at most a few values per
// buffer (no sort at all), else over the distinct first tasks (one sort
// of them). Other records take loadSweep, which gives them a meaning.
func LoadBound(bufs []Buffer) int64 {
	if len(bufs) == 0 {
		return 0
	}
	lo, hi := bufs[0].First, bufs[0].Last
	for _, b := range bufs {
		if b.First > b.Last || b.Size < 0 {
			return loadSweep(bufs)
		}
		lo, hi = min(lo, b.First), max(hi, b.Last)
	}
	// hi >= lo: the unsigned difference is the span even where the
	// signed one would overflow.
	if span := uint64(hi) - uint64(lo); span < 4*uint64(len(bufs)) {
		diff := make([]int64, span+2)
		for _, b := range bufs {
			diff[b.First-lo] += b.Size
			diff[b.Last-lo+1] -= b.Size
		}
		return peak(diff)
	}
	firsts := make([]int, len(bufs))
	for i, b := range bufs {
		firsts[i] = b.First
	}
	slices.Sort(firsts)
	firsts = slices.Compact(firsts)
	diff := make([]int64, len(firsts)+1)
	for _, b := range bufs {
		a, _ := slices.BinarySearch(firsts, b.First)
		// The last first task <= Last: at or after a, as First <= Last.
		e, found := slices.BinarySearch(firsts[a:], b.Last)
		if !found {
			e--
		}
		diff[a] += b.Size
		diff[a+e+1] -= b.Size
	}
	return peak(diff)
}

// peak returns the largest prefix sum of diff, 0 at least.
func peak(diff []int64) int64 {
	var live, p int64
	for _, d := range diff {
		live += d
		p = max(p, live)
	}
	return p
}

// loadSweep is LoadBound by a sweep over alloc and free events, for any
// records: one whose First is after its Last frees before it allocates,
// lowering the load in between.
func loadSweep(bufs []Buffer) int64 {
	type edge struct {
		t     int
		delta int64
	}
	edges := make([]edge, 0, 2*len(bufs))
	for _, b := range bufs {
		if b.Size == 0 {
			continue
		}
		edges = append(edges, edge{b.First, b.Size}, edge{b.Last + 1, -b.Size})
	}
	// Frees at t+1 sort before allocations at t+1: a buffer ending at t and
	// one starting at t+1 are never live together.
	slices.SortFunc(edges, func(a, b edge) int {
		if a.t != b.t {
			if a.t < b.t {
				return -1
			}
			return 1
		}
		switch {
		case a.delta < b.delta:
			return -1
		case a.delta > b.delta:
			return 1
		}
		return 0
	})
	var live, peak int64
	for _, e := range edges {
		live += e.delta
		if live > peak {
			peak = live
		}
	}
	return peak
}

// SpaceLoads returns LB_load of each memory space (one for a problem
// without Memories), counting gaps: at each task a buffer uses its
// window's bytes in a gap (none without a window) and its size elsewhere.
// Under the gap rule (EffectiveSize) the windows in use at one task are
// disjoint, so a space's footprint is at least the most bytes in use at
// any task, and at least the size of each of its buffers.
func (p *Problem) SpaceLoads() []int64 {
	k := max(len(p.Memories), 1)
	loads := make([]int64, k)
	if p.Gaps == nil && k == 1 {
		loads[0] = LoadBound(p.Buffers)
		return loads
	}
	pieces := make([][]Buffer, k)
	for i, b := range p.Buffers {
		m := p.MemoryOf(i)
		gaps := p.GapsOf(i)
		if len(gaps) == 0 {
			pieces[m] = append(pieces[m], b)
			continue
		}
		loads[m] = max(loads[m], b.Size)
		t := b.First
		for _, g := range gaps {
			if g.First > t {
				pieces[m] = append(pieces[m], Buffer{Size: b.Size, First: t, Last: g.First - 1})
			}
			if g.Window != nil {
				pieces[m] = append(pieces[m], Buffer{Size: g.Window.Hi - g.Window.Lo, First: g.First, Last: g.Last})
			}
			t = g.Last + 1
		}
		if t <= b.Last {
			pieces[m] = append(pieces[m], Buffer{Size: b.Size, First: t, Last: b.Last})
		}
	}
	for m, ps := range pieces {
		loads[m] = max(loads[m], LoadBound(ps))
	}
	return loads
}
