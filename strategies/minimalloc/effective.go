package minimalloc

import (
	"cmp"
	"slices"
)

// effectiveSize is upstream's Buffer::effective_size (minimalloc.cc): how
// far above a's offset b may start, given when each uses which bytes.
// Over every stretch of time in which both use memory, it is the end of
// a's window minus the start of b's; the largest such value counts. It
// is absent when no such stretch exists (they never both use memory).
//
// This is the one place the rule is computed; it becomes the workloads
// package's shared rule once that exists.
func effectiveSize(a, b *buffer) (int64, bool) {
	if a.upper <= b.lower || b.upper <= a.lower {
		return 0, false
	}
	if len(a.gaps) == 0 && len(b.gaps) == 0 {
		// Both use all their bytes over lifespans that meet.
		return a.size, true
	}
	// The kinds order events at one time: starts, then a gap's end (use
	// resumes), then a gap's start (use pauses), then ends.
	const (
		kLeft = iota
		kLeftGap
		kRightGap
		kRight
	)
	type event struct {
		who  int
		time int64
		kind int
		has  bool
		win  window
	}
	evs := make([]event, 0, 4+2*(len(a.gaps)+len(b.gaps)))
	for who, x := range [2]*buffer{a, b} {
		full := window{0, x.size}
		evs = append(evs, event{who, x.lower, kLeft, true, full}, event{who, x.upper, kRight, false, window{}})
		for _, g := range x.gaps {
			evs = append(evs, event{who, g.lower, kRightGap, g.hasWin, g.win}, event{who, g.upper, kLeftGap, true, full})
		}
	}
	slices.SortStableFunc(evs, func(x, y event) int {
		if c := cmp.Compare(x.time, y.time); c != 0 {
			return c
		}
		if c := cmp.Compare(x.kind, y.kind); c != 0 {
			return c
		}
		return cmp.Compare(x.who, y.who)
	})
	var cur [2]*window
	var wins [2]window
	var best int64
	found, started := false, false
	var last int64
	for _, e := range evs {
		if started && e.time > last && cur[0] != nil && cur[1] != nil {
			if d := cur[0].hi - cur[1].lo; !found || best < d {
				best, found = d, true
			}
		}
		started, last = true, e.time
		if e.has {
			wins[e.who] = e.win
			cur[e.who] = &wins[e.who]
		} else {
			cur[e.who] = nil
		}
	}
	return best, found
}
