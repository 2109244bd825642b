package exact

import (
	"cmp"
	"context"
	"slices"

	"membench/workloads"
)

// instance is the part of a problem the search works on: the buffers of
// non-zero size (zero-size buffers overlap nothing and sit at offset 0, or
// at their fixed offset), cut into sections of time in which the set of
// buffers in use, and their windows, are constant.
type instance struct {
	// idx[k] is the problem index of search buffer k.
	idx  []int
	size []int64
	// asize[k] is size[k] rounded up to the alignment: what buffer k
	// takes from the buffers stacked above it.
	asize []int64
	first []int
	last  []int
	// align is g: every offset of a plan is a multiple of it (the
	// problem's alignment when no buffer has forms; see forms.go).
	align int64
	// al[k] is buffer k's own alignment.
	al []int64
	// uniform: no buffer has an alignment of its own, gaps or a fixed
	// offset, so the effective sizes are the sizes and every buffer's
	// alignment is align.
	uniform bool
	// proofs: the search is complete, so a search that finds nothing
	// proves it (forms.go).
	proofs bool
	// fixed[k] is buffer k's fixed offset, or noOffset; nil when none is.
	fixed []int64
	// minInit[k] is the lowest offset buffer k can take before anything
	// is placed: its fixed offset, or the first fit around the fixed
	// buffers; nil when no buffer is fixed.
	minInit []int64
	// obst[k] lists the offsets the fixed buffers forbid to free buffer
	// k, by lo; nil when no buffer is fixed.
	obst [][]obstacle
	// fixedTop is the highest end of a fixed buffer, zero-size ones too.
	fixedTop int64
	// quantum divides the footprint of every canonical plan, so of an
	// optimal one (quantumOf).
	quantum int64
	// Section s holds the tasks points[s] .. points[s+1]-1.
	points []int
	// Buffer k lives in sections secLo[k] .. secHi[k]-1, and uses memory
	// in the runs runs[runAt[k]:runAt[k+1]] of them.
	secLo, secHi []int32
	runAt        []int32
	runs         []span
	// secBufs[s] lists the buffers in use in section s.
	secBufs [][]int32
	// load[s] is the sum of the windows in use in section s; aload[s] the
	// sum of what they take from a stack (span.w).
	load, aload []int64
	// pad[s] is the largest asize-size of the buffers live in section s.
	// Offsets are aligned, so a stack of buffers of s reaches at least its
	// base plus the sum of their asize, less the top one's padding, less
	// pad[s] at most.
	pad []int64
	// overlaps[k] lists the buffers that use memory at some task with
	// buffer k; with gaps, up[k][x] is overlaps[k][x]'s effective size
	// above k and down[k][x] k's above it (nil without gaps: the sizes).
	overlaps [][]int32
	up, down [][]int64
	// twin[k] is the buffer of the same size and lifetime as k with the
	// next lower index, or -1. Identical buffers are interchangeable, so
	// they are placed in index order (every static order keeps them
	// adjacent, by index).
	twin []int32
	// parts are the independent sub-problems: no buffer lives on both
	// sides of the boundary between two consecutive parts.
	parts []part
}

// span is a stretch of sections [lo, hi) in which a buffer uses the window
// [wlo, whi) of its bytes; w is what it takes from a stack of the
// section's buffers: its size rounded up to the alignment where the
// window is the whole buffer, else the window's length.
type span struct {
	lo, hi   int32
	wlo, whi int64
	w        int64
}

// part is a range of sections and the buffers living in them.
type part struct {
	secLo, secHi int32
	bufs         []int32
	// lb is the part's peak load (with fixed buffers, the most any
	// section needs beside them: fixedBound): no plan of it fits below.
	// alb is the largest aload[s]-pad[s] of its sections: no plan fits
	// below it either.
	lb, alb int64
}

// ctxEvery is how many loop steps pass between context checks while the
// instance is built.
const ctxEvery = 4096

// runsOf returns the runs of buffer k.
func (in *instance) runsOf(k int32) []span { return in.runs[in.runAt[k]:in.runAt[k+1]] }

// runOf returns the run of buffer k holding section t, where k is in use.
func (in *instance) runOf(k, t int32) span {
	for _, r := range in.runsOf(k) {
		if r.lo <= t && t < r.hi {
			return r
		}
	}
	panic("exact: buffer not in use in the section")
}

// alignOf returns buffer k's alignment.
func (in *instance) alignOf(k int32) int64 { return in.al[k] }

// upOf returns how far above buffer k its x-th overlap must sit.
func (in *instance) upOf(k int32, x int) int64 {
	if in.up == nil {
		return in.size[k]
	}
	return in.up[k][x]
}

// forbidden returns the offsets buffer k may not take beside its x-th
// overlap j at offset o: those below o plus j's effective size above k,
// and above o less k's above j.
func (in *instance) forbidden(k int32, x int, o int64) obstacle {
	j := in.overlaps[k][x]
	down := in.size[j]
	if in.down != nil {
		down = in.down[k][x]
	}
	return obstacle{o - in.upOf(k, x) + 1, o + down}
}

// isFixed reports whether buffer k has a fixed offset.
func (in *instance) isFixed(k int32) bool { return in.fixed != nil && in.fixed[k] != noOffset }

// quantumOf returns q, the greatest common divisor of the sizes, the
// alignments above 1, the fixed offsets and the ends of the gap windows of
// p (1 if that is 0). Every plan the search builds has a footprint that q
// divides, and so does an optimal plan, since the search finds one (its
// plans are canonical: each buffer at 0, at its fixed offset, or at the
// offset of a buffer below plus an effective size or at the end of a
// fixed buffer's forbidden range, rounded up to its alignment). By
// induction every offset is a multiple of q: 0 and fixed offsets are; an
// offset plus a size or a difference of window ends is; rounding up to an
// alignment of 1 keeps it and to one above 1 gives a multiple of that,
// which q divides. A footprint, an offset plus a size, is one too. So a
// search that proves no plan fits within c proves the bound c+1 rounded
// up to a multiple of q; where every size is a multiple of 1,024 (as in
// MiniMalloc's instances) a proof raises the bound by 1,024, not 1.
func quantumOf(p *workloads.Problem) int64 {
	var q int64
	for i, b := range p.Buffers {
		q = gcd(q, b.Size)
		if a := p.AlignOf(i); a > 1 {
			q = gcd(q, a)
		}
		if o, ok := p.FixedOf(i); ok {
			q = gcd(q, o)
		}
		for _, g := range p.GapsOf(i) {
			if g.Window != nil {
				q = gcd(gcd(q, g.Window.Lo), g.Window.Hi)
			}
		}
	}
	return max(q, 1)
}

// roundUp returns x rounded up to a multiple of q.
func roundUp(x, q int64) int64 { return (x + q - 1) / q * q }

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// newInstance builds the sections, overlaps and parts of p's buffers.
func newInstance(ctx context.Context, p *workloads.Problem) (*instance, error) {
	forms := p.Forms() & (workloads.FormAlign | workloads.FormGaps | workloads.FormFixed)
	in := &instance{align: max(p.Alignment, 1), uniform: forms == 0, proofs: true}
	gaps := forms&workloads.FormGaps != 0
	if forms != 0 {
		in.align = 0
	}
	for i, b := range p.Buffers {
		o, fixed := p.FixedOf(i)
		if fixed {
			in.fixedTop = max(in.fixedTop, o+b.Size)
		}
		if b.Size == 0 {
			continue
		}
		in.idx = append(in.idx, i)
		in.size = append(in.size, b.Size)
		in.first = append(in.first, b.First)
		in.last = append(in.last, b.Last)
		in.al = append(in.al, max(p.AlignOf(i), 1))
		if forms != 0 {
			in.align = gcd(in.align, p.AlignOf(i))
			if fixed {
				in.align = gcd(in.align, o)
			}
		}
		if forms&workloads.FormFixed != 0 {
			if !fixed {
				o = noOffset
			}
			in.fixed = append(in.fixed, o)
		}
	}
	if gaps || in.align < 1 {
		// With windows a stack need not take whole sizes.
		in.align = 1
	}
	n := len(in.idx)
	in.asize = make([]int64, n)
	for k := range n {
		in.asize[k] = alignUp(in.size[k], in.align)
	}
	// Section boundaries: every first task and every last task + 1, and
	// the ends of every gap.
	points := make([]int, 0, 2*n)
	for k := range n {
		points = append(points, in.first[k], in.last[k]+1)
		for _, g := range p.GapsOf(in.idx[k]) {
			points = append(points, g.First, g.Last+1)
		}
	}
	slices.Sort(points)
	points = slices.Compact(points)
	in.points = points
	nsec := max(len(points)-1, 0)
	in.secLo = make([]int32, n)
	in.secHi = make([]int32, n)
	in.runAt = make([]int32, n+1)
	in.runs = make([]span, 0, n)
	cross := make([]int32, nsec+1)
	for k := range n {
		lo, _ := slices.BinarySearch(points, in.first[k])
		hi, _ := slices.BinarySearch(points, in.last[k]+1)
		in.secLo[k], in.secHi[k] = int32(lo), int32(hi)
		gs := p.GapsOf(in.idx[k])
		if len(gs) == 0 {
			in.runs = append(in.runs, span{int32(lo), int32(hi), 0, in.size[k], in.asize[k]})
		} else {
			// One run per stretch of the same window; none where the
			// buffer's memory is free.
			for s := lo; s < hi; s++ {
				w, use := windowAt(in.size[k], gs, points[s])
				if !use {
					continue
				}
				last := len(in.runs) - 1
				if last >= int(in.runAt[k]) && in.runs[last].hi == int32(s) && in.runs[last].wlo == w.Lo && in.runs[last].whi == w.Hi {
					in.runs[last].hi++
					continue
				}
				rw := w.Hi - w.Lo
				if w.Lo == 0 && w.Hi == in.size[k] {
					rw = in.asize[k]
				}
				in.runs = append(in.runs, span{int32(s), int32(s + 1), w.Lo, w.Hi, rw})
			}
		}
		in.runAt[k+1] = int32(len(in.runs))
		// The boundaries strictly inside the lifetime are crossed.
		if lo+1 < hi {
			cross[lo+1]++
			cross[hi]--
		}
	}
	diff := make([]int64, nsec+1)
	adiff := make([]int64, nsec+1)
	counts := make([]int32, nsec+1)
	for _, r := range in.runs {
		diff[r.lo] += r.whi - r.wlo
		diff[r.hi] -= r.whi - r.wlo
		adiff[r.lo] += r.w
		adiff[r.hi] -= r.w
		counts[r.lo]++
		counts[r.hi]--
	}
	in.load = make([]int64, nsec)
	in.aload = make([]int64, nsec)
	var run, arun int64
	var crun int32
	live := make([]int32, nsec)
	var c int32
	for s := range nsec {
		run += diff[s]
		in.load[s] = run
		arun += adiff[s]
		in.aload[s] = arun
		c += counts[s]
		live[s] = c
	}
	in.secBufs = make([][]int32, nsec)
	for s := range nsec {
		in.secBufs[s] = make([]int32, 0, live[s])
	}
	in.pad = make([]int64, nsec)
	for k := range n {
		if k%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		for _, r := range in.runsOf(int32(k)) {
			for s := r.lo; s < r.hi; s++ {
				in.secBufs[s] = append(in.secBufs[s], int32(k))
				in.pad[s] = max(in.pad[s], r.w-(r.whi-r.wlo))
			}
		}
	}
	if err := in.overlapsOf(ctx, p, gaps); err != nil {
		return nil, err
	}
	in.quantum = quantumOf(p)
	if in.fixed != nil {
		in.minInit = make([]int64, n)
		in.obst = make([][]obstacle, n)
		for k := range int32(n) {
			if in.isFixed(k) {
				in.minInit[k] = in.fixed[k]
				continue
			}
			for x, j := range in.overlaps[k] {
				if in.isFixed(j) {
					in.obst[k] = append(in.obst[k], in.forbidden(k, x, in.fixed[j]))
				}
			}
			slices.SortFunc(in.obst[k], func(a, b obstacle) int { return cmp.Compare(a.lo, b.lo) })
			in.minInit[k] = firstFit(0, in.al[k], in.obst[k])
		}
	}
	// Parts: cut at every boundary no buffer crosses.
	start := int32(0)
	for s := int32(1); s <= int32(nsec); s++ {
		if s < int32(nsec) {
			crun += cross[s]
			if crun > 0 {
				continue
			}
		}
		pt := part{secLo: start, secHi: s}
		for t := start; t < s; t++ {
			if in.fixed != nil {
				pt.lb = max(pt.lb, in.fixedBound(t))
			} else {
				pt.lb = max(pt.lb, in.load[t])
			}
			pt.alb = max(pt.alb, in.aload[t]-in.pad[t])
		}
		if pt.lb > 0 || pt.alb > 0 {
			in.parts = append(in.parts, pt)
		}
		start = s
	}
	for k := range n {
		// The part holding section secLo[k]: parts are sorted by secLo.
		j, found := slices.BinarySearchFunc(in.parts, in.secLo[k], func(pt part, s int32) int {
			if s < pt.secLo {
				return 1
			}
			if s >= pt.secHi {
				return -1
			}
			return 0
		})
		if !found {
			// A buffer never in use (its gaps cover its lifetime) in a
			// part of its own: it conflicts with nothing.
			in.parts = slices.Insert(in.parts, j, part{secLo: in.secLo[k], secHi: in.secHi[k]})
		}
		in.parts[j].bufs = append(in.parts[j].bufs, int32(k))
	}
	in.twin = make([]int32, n)
	type shape struct {
		size        int64
		first, last int
		align       int64
	}
	prev := map[shape]int32{}
	for k := range n {
		in.twin[k] = -1
		if in.isFixed(int32(k)) || len(p.GapsOf(in.idx[k])) > 0 {
			continue
		}
		sh := shape{in.size[k], in.first[k], in.last[k], in.al[k]}
		if j, ok := prev[sh]; ok {
			in.twin[k] = j
		}
		prev[sh] = int32(k)
	}
	return in, nil
}

// overlapsOf finds the pairs of buffers that use memory at some task
// together and, with gaps, their effective sizes.
func (in *instance) overlapsOf(ctx context.Context, p *workloads.Problem, gaps bool) error {
	n := len(in.idx)
	// Sorted by first section, buffer k meets every later buffer that
	// starts before its own sections end.
	order := make([]int32, n)
	for k := range order {
		order[k] = int32(k)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(in.secLo[a], in.secLo[b]) })
	in.overlaps = make([][]int32, n)
	if gaps {
		in.up, in.down = make([][]int64, n), make([][]int64, n)
	}
	for x, a := range order {
		if x%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		for _, b := range order[x+1:] {
			if in.secLo[b] >= in.secHi[a] {
				break
			}
			if gaps {
				ab, ok := workloads.EffectiveSize(p, in.idx[a], in.idx[b])
				if !ok {
					continue
				}
				ba, _ := workloads.EffectiveSize(p, in.idx[b], in.idx[a])
				if ab <= 0 || ba <= 0 {
					// One may sit below the other although it comes
					// later in offset order: see forms.go.
					in.proofs = false
				}
				in.up[a] = append(in.up[a], ab)
				in.down[a] = append(in.down[a], ba)
				in.up[b] = append(in.up[b], ba)
				in.down[b] = append(in.down[b], ab)
			}
			in.overlaps[a] = append(in.overlaps[a], b)
			in.overlaps[b] = append(in.overlaps[b], a)
		}
	}
	return nil
}
