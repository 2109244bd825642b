package exact

import (
	"cmp"
	"fmt"
	"slices"

	"membench/workloads"
)

// How exact honours the problem forms (workloads.Forms):
//
//   - Per-buffer alignment: a buffer's minimum offset is rounded up to its
//     own alignment. The stacking arguments of the bounds and of the
//     search round sizes up to g, the greatest common divisor of every
//     alignment and every fixed offset: every offset of a plan is a
//     multiple of g, so a stack of buffers still takes each one's size
//     rounded up to g, all but the top one.
//   - Gaps: buffers conflict by the pairwise rule of MiniMalloc's
//     validator (workloads.EffectiveSize and Collide): b sits above a when
//     b's offset is at least a's plus a's effective size below b. Sections of time are cut at every
//     gap's ends too, and in each section a buffer takes only its in-use
//     window (nothing in a gap without one): loads, floors and the rooms
//     of the search count those windows.
//   - Fixed offsets: a fixed buffer goes at its offset and nowhere else.
//     The search places it in its turn of the canonical order (by offset)
//     and places no buffer above its offset while it waits; a free buffer
//     goes at the lowest aligned offset, above the placed buffers it
//     conflicts with, that conflicts with no fixed buffer (firstFit).
//   - Memory spaces: not declared, so the registry plans each space as a
//     problem of its own (strategies.SpaceProblems); exact has nothing to
//     gain from planning them together, as no buffer of one space meets
//     one of another.
//
// The canonical argument (a solution sorted by offset can be pushed down
// into one the search builds) needs every conflicting pair to take a
// positive effective size both ways, so that the earlier of two
// conflicting buffers in offset order is the lower one. Gap windows can
// break that (a buffer whose window during the gap starts above the whole
// of the other's); such a problem is still planned, but the search no
// longer proves anything: its bound is the static one.

// windowAt returns the window of a buffer of the given size and gaps in
// use at task t (inside its lifetime), and false when none of it is.
func windowAt(size int64, gaps []workloads.Gap, t int) (workloads.Window, bool) {
	for _, g := range gaps {
		if g.First <= t && t <= g.Last {
			if g.Window == nil {
				return workloads.Window{}, false
			}
			return *g.Window, true
		}
	}
	return workloads.Window{Lo: 0, Hi: size}, true
}

// obstacle is a range [lo, hi) of offsets that a free buffer may not take
// because of one fixed buffer.
type obstacle struct{ lo, hi int64 }

// firstFit returns the lowest offset >= x, aligned to a, outside every
// obstacle of obs (sorted by lo).
func firstFit(x, a int64, obs []obstacle) int64 {
	o := alignUp(max(x, 0), a)
	for _, ob := range obs {
		if ob.hi <= o {
			continue
		}
		if ob.lo > o {
			break
		}
		o = alignUp(ob.hi, a)
	}
	return o
}

// checkFixed reports the first pair of fixed buffers of p that break the
// pairwise rule, and the first fixed offset that is negative or not a
// multiple of its buffer's alignment, as an error naming both.
func checkFixed(p *workloads.Problem) error {
	var fixed []int
	for i := range p.Buffers {
		if o, ok := p.FixedOf(i); ok {
			b := p.Buffers[i]
			if a := p.AlignOf(i); o < 0 || o%a != 0 {
				return fmt.Errorf("exact: buffer %d (id %d) is fixed at offset %d, not a multiple of its alignment %d", i, b.ID, o, a)
			}
			fixed = append(fixed, i)
		}
	}
	for x, i := range fixed {
		for _, j := range fixed[x+1:] {
			oi, _ := p.FixedOf(i)
			oj, _ := p.FixedOf(j)
			if workloads.Collide(p, i, j, oi, oj) {
				return fmt.Errorf("exact: %w: buffers %d (id %d) fixed at %d and %d (id %d) fixed at %d overlap while both are live",
					ErrInfeasible, i, p.Buffers[i].ID, oi, j, p.Buffers[j].ID, oj)
			}
		}
	}
	return nil
}

// greedy is the starting plan of a problem with forms, which the
// heuristics of best-of may not honour: fixed buffers at their offsets,
// then the others, largest first, each at the lowest aligned offset that
// conflicts with no buffer placed before it.
func greedy(p *workloads.Problem, in *instance) []int64 {
	offs := make([]int64, len(p.Buffers))
	for i := range p.Buffers {
		offs[i], _ = p.FixedOf(i)
	}
	n := len(in.idx)
	placed := make([]bool, n)
	order := make([]int32, 0, n)
	for k := range n {
		if in.fixed != nil && in.fixed[k] != noOffset {
			placed[k] = true
		} else {
			order = append(order, int32(k))
		}
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(in.size[b], in.size[a]) })
	var obs []obstacle
	for _, k := range order {
		obs = obs[:0]
		for x, j := range in.overlaps[k] {
			if placed[j] {
				obs = append(obs, in.forbidden(k, x, offs[in.idx[j]]))
			}
		}
		slices.SortFunc(obs, func(a, b obstacle) int { return cmp.Compare(a.lo, b.lo) })
		offs[in.idx[k]] = firstFit(0, in.alignOf(k), obs)
		placed[k] = true
	}
	return offs
}

// fixedBound returns the least capacity that section t can hold its
// buffers in: the free ones' windows must fit beside the fixed ones'
// below it. A capacity C leaves C less the bytes the fixed windows cover
// below C for the others, whose windows at t are disjoint; so C is at
// least the first point where the uncovered bytes below it reach the free
// load. Without fixed buffers it is the section's load.
func (in *instance) fixedBound(t int32) int64 {
	var free int64
	var cover []obstacle
	for _, k := range in.secBufs[t] {
		r := in.runOf(k, t)
		if in.fixed != nil && in.fixed[k] != noOffset {
			cover = append(cover, obstacle{in.fixed[k] + r.wlo, in.fixed[k] + r.whi})
		} else {
			free += r.whi - r.wlo
		}
	}
	if len(cover) == 0 {
		return free
	}
	slices.SortFunc(cover, func(a, b obstacle) int { return cmp.Compare(a.lo, b.lo) })
	pos := int64(0)
	for _, c := range cover {
		if c.lo > pos {
			if free <= c.lo-pos {
				return pos + free
			}
			free -= c.lo - pos
		}
		pos = max(pos, c.hi)
	}
	return pos + free
}
