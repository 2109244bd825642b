package exact

import (
	"cmp"
	"context"
	"slices"
	"time"

	"membench/workloads"
)

// The window bound. For any set S of the buffers of a problem P, and any
// clipping of their lifetimes to a range of tasks, the optimum of the
// problem S (so clipped) is a lower bound on the optimum of P: a plan of
// P, kept to the buffers of S, is a plan of S, since clipping lifetimes
// only removes conflicts, and its footprint is no larger. So a search of
// S that proves no plan of S fits within c (complete: every canonical
// plan tried) proves the same of P.
//
// exact takes for S the buffers live in a short window of consecutive
// sections around a section of peak load, clipped to the window. LB_load
// sees each section alone; the window sees buffers that cross from one
// section to the next and must keep their offset, which can force more
// than any one section's load. The windows are small, so the searches
// are complete far more often than the whole problem's.

// windowWidths are the widths, in sections, of the windows tried around
// each peak; windowPeaks is how many peaks (sections of highest load)
// are tried.
var windowWidths = []int32{2, 3, 5, 8, 13}

const windowPeaks = 4

// windowBound raises sv.lo with window bounds, spending at most the
// budget b (which the searches of the windows share).
func (sv *solver) windowBound(ctx context.Context, b *budget) {
	in := sv.in
	if !in.proofs || !in.uniform || len(in.load) == 0 {
		return
	}
	secs := make([]int32, len(in.load))
	for s := range secs {
		secs[s] = int32(s)
	}
	slices.SortStableFunc(secs, func(a, c int32) int { return cmp.Compare(in.load[c], in.load[a]) })
	type window struct{ lo, hi int32 }
	seen := map[window]bool{}
	for _, w := range windowWidths {
		for _, t := range secs[:min(windowPeaks, len(secs))] {
			lo := max(0, t-(w-1)/2)
			win := window{lo, min(int32(len(in.load)), lo+w)}
			if seen[win] {
				continue
			}
			seen[win] = true
			if sv.lo >= sv.hi || b.spent() || b.nodes == 0 {
				return
			}
			sv.lo = max(sv.lo, sv.subBound(ctx, b, win.lo, win.hi))
		}
	}
}

// subBound returns a lower bound on the footprint proved from the buffers
// live in sections [lo, hi), clipped to them: sv.lo, or more where the
// window's search proves no plan of it fits there.
func (sv *solver) subBound(ctx context.Context, b *budget, lo, hi int32) int64 {
	in := sv.in
	first, last := in.points[lo], in.points[hi]-1
	sub := &workloads.Problem{Alignment: in.align}
	var offs []int64
	for k := range in.idx {
		if in.secLo[k] < hi && in.secHi[k] > lo {
			sub.Buffers = append(sub.Buffers, workloads.Buffer{
				ID: len(sub.Buffers), Size: in.size[k], First: max(in.first[k], first), Last: min(in.last[k], last),
			})
			// The plan kept to the window is a plan of it.
			offs = append(offs, sv.offs[in.idx[k]])
		}
	}
	sin, err := newInstance(ctx, sub)
	if err != nil {
		return sv.lo
	}
	ssv := &solver{in: sin, b: b, offs: offs, lo: sv.lo, slo: sv.lo}
	for k := range sin.idx {
		ssv.hi = max(ssv.hi, offs[k]+sin.size[k])
	}
	// Only its questions at the bound matter: a plan of the window within
	// sv.lo proves nothing.
	ssv.noProbes = true
	ssv.minimise()
	sv.nodes += ssv.nodes
	return ssv.lo
}

// windowBudget returns the share of e's budget the window bounds get: an
// eighth of the time, and an eighth of the nodes but no more than 64 per
// buffer of the problem (n of them).
func (e exact) windowBudget(ctx context.Context, n int) *budget {
	b := &budget{ctx: ctx, nodes: 64 * int64(n)}
	if e.timeout > 0 {
		b.deadline = time.Now().Add(e.timeout / 8)
	}
	if e.nodes > 0 {
		b.nodes = min(b.nodes, e.nodes/8)
	}
	return b
}
