package exact

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// rectsOfRef is rectsOf as it was before its joins were undone rather
// than made afresh for every try (each try joined every group but those
// cut, and found the classes of every buffer): kept for
// TestRectsOfMatchesReference. join(cut) joins the buffers of every
// group but those cut; find is the forest join leaves.
func rectsOfRef(in *instance, pt *part, c int64, rev bool, p *pace, groups []group, join func(cut []bool), find func(int32) int32, hint *[2]int32, work *int64, maxWork int64, bladesOnly bool) *banded {
	ns := pt.secHi - pt.secLo
	n := len(pt.bufs)
	lo, hi := make([]int32, n), make([]int32, n)
	net := make([]int64, n)
	bad := make([]uint8, n) // per class: bit x where bad at the x-th boundary
	local := make([]int32, len(in.size))
	for i, k := range pt.bufs {
		local[k] = int32(i)
	}
	// at[s] lists the groups of boundary s.
	at := make([][]int, ns+1)
	for gi, g := range groups {
		at[g.s] = append(at[g.s], gi)
	}
	cut := make([]bool, len(groups))
	var firstSeen, lastSeen bool
	var s1, s2 int32
	// eachCut calls, boundary by boundary (s1: x = 0, s2: x = 1), each
	// pass in turn on every buffer k of the boundary's unjoined groups; a
	// pass that returns true for some buffer of a group joins that group
	// again.
	changed := false
	eachCut := func(passes ...func(x int, s int32, k int32) bool) {
		for x, s := range [2]int32{s1, s2} {
			if s < 0 {
				continue
			}
			for _, pass := range passes {
				for _, gi := range at[s] {
					if !cut[gi] {
						continue
					}
					for _, k := range groups[gi].bufs {
						if pass(x, s, k) {
							cut[gi], changed = false, true
							break
						}
					}
				}
			}
		}
	}
	rect := func(b1, b2 int32) bool {
		s1, s2 = b1, b2
		firstSeen, lastSeen = false, false
		clear(cut)
		for _, s := range [2]int32{s1, s2} {
			if s >= 0 {
				for _, gi := range at[s] {
					cut[gi] = true
				}
			}
		}
		for {
			*work += int64(n)
			join(cut)
			for i := range n {
				lo[i], hi[i], net[i], bad[i] = ns, 0, 0, 0
			}
			roots, big := 0, false
			for i, k := range pt.bufs {
				r := find(int32(i))
				if lo[r] == ns {
					roots++
				} else {
					big = true
				}
				lo[r], hi[r] = min(lo[r], in.secLo[k]-pt.secLo), max(hi[r], in.secHi[k]-pt.secLo)
			}
			if s2 < 0 && !firstSeen && !lastSeen {
				for i := range n {
					firstSeen = firstSeen || lo[i] == 0 && hi[i] == s1
					lastSeen = lastSeen || lo[i] == s1 && hi[i] == ns
				}
			}
			if roots < 2 || !big {
				return false
			}
			// A class whose load changes at s1 or s2 inside its lifetime
			// is bad.
			anyBad := false
			eachCut(func(x int, s int32, k int32) bool {
				r := find(local[k])
				if in.secLo[k]-pt.secLo == s {
					net[r] += in.size[k]
				} else {
					net[r] -= in.size[k]
				}
				return false
			}, func(x int, s int32, k int32) bool {
				if r := find(local[k]); net[r] != 0 && lo[r] != s && hi[r] != s {
					bad[r], anyBad = bad[r]|1<<x, true
				}
				return false
			}, func(x int, s int32, k int32) bool {
				net[find(local[k])] = 0
				return false
			})
			if !anyBad {
				return true
			}
			// Repair: join again the unjoined groups that hold a buffer
			// of a class bad at their boundary.
			changed = false
			eachCut(func(x int, s int32, k int32) bool {
				return bad[find(local[k])]&(1<<x) != 0
			})
			if !changed {
				return false
			}
		}
	}
	// maxHi[s]: the latest end of the buffers starting before s;
	// minLo[s]: the earliest start of those ending after s.
	maxHi, minLo := make([]int32, ns+1), make([]int32, ns+1)
	for i := range minLo {
		minLo[i] = ns
	}
	for _, k := range pt.bufs {
		l, h := in.secLo[k]-pt.secLo, in.secHi[k]-pt.secLo
		maxHi[l+1] = max(maxHi[l+1], h)
		minLo[h-1] = min(minLo[h-1], l)
	}
	for s := int32(1); s <= ns; s++ {
		maxHi[s] = max(maxHi[s], maxHi[s-1])
	}
	for s := ns - 1; s >= 0; s-- {
		minLo[s] = min(minLo[s], minLo[s+1])
	}
	split := false
	if hint != nil {
		// Another pairing of a part whose rectangles were found: only
		// the boundaries they were found at are tried.
		split = rect(hint[0], hint[1])
		return rectsDone(in, pt, c, rev, p, find, split, lo, [2]int32{s1, s2})
	}
	first, last := make([]bool, ns+1), make([]bool, ns+1)
	for s1 := int32(1); s1 < ns && !split; s1++ {
		if *work > maxWork || p.b.spent() {
			return nil
		}
		split = rect(s1, -1)
		first[s1], last[s1] = firstSeen, lastSeen
	}
	// Pairs of boundaries no buffer lives across both: first those
	// where, each left unjoined alone, a class ends at the first having
	// started with the part and one starts at the second and ends with
	// it (a pinwheel's first and last blades), then the others.
	for _, blades := range []bool{true, false} {
		if !blades && bladesOnly {
			break
		}
		for s1 := int32(1); s1 < ns && !split; s1++ {
			for s2 := max(s1+1, maxHi[s1]); s2 < ns && !split; s2++ {
				if minLo[s2] < s1 || blades != (first[s1] && last[s2]) {
					continue
				}
				if *work > maxWork || p.b.spent() {
					return nil
				}
				split = rect(s1, s2)
			}
		}
	}
	return rectsDone(in, pt, c, rev, p, find, split, lo, [2]int32{s1, s2})
}

// TestRectsOfMatchesReference runs rectsOf and rectsOfRef on the same
// layouts, those of the parts with no slack (and of their bands, level
// by level) of tilings and pinwheels, each as paired and changed at one
// boundary (alternatives), with rectsOf's search limited to several
// amounts of work and with the hints repair gives: both must find the
// same rectangles (or none) having counted the same work.
func TestRectsOfMatchesReference(t *testing.T) {
	var specs []string
	for _, fam := range []string{"pinwheel", "tiling"} {
		for _, sizes := range []string{"uniform", "log-uniform", "zipf", "bimodal", "dominant"} {
			for seed := 1; seed <= 3; seed++ {
				specs = append(specs, fmt.Sprintf("synthetic/%s?n=100&sizes=%s&seed=%d", fam, sizes, seed))
			}
		}
	}
	specs = append(specs, "synthetic/pinwheel?n=300&sizes=log-uniform&seed=3", "synthetic/pinwheel?n=300&sizes=zipf&seed=2")
	if testing.Short() {
		specs = specs[:6]
	}
	var tried, found int
	for _, spec := range specs {
		in := loadInstance(t, spec)
		var layouts []*layout
		var walk func(in *instance, c int64, depth int)
		walk = func(in *instance, c int64, depth int) {
			for i := range in.parts {
				pt := &in.parts[i]
				if len(pt.bufs) < 4 || !in.zeroSlack(pt, c) {
					continue
				}
				bud := &budget{ctx: context.Background(), nodes: -1}
				b, l := bandsOf(in, pt, c, false, &pace{b: bud}, false)
				if l != nil {
					layouts = append(layouts, l)
				}
				if b == nil || depth == 2 {
					continue
				}
				for j := range b.bands {
					bd := &b.bands[j]
					if len(bd.ks) > 1 && bd.build(&pace{b: bud}) {
						walk(bd.in, bd.h, depth+1)
					}
				}
			}
		}
		walk(in, 1<<20, 0) // the families' capacity
		for _, l := range layouts {
			variants := []*layout{l}
			for _, a := range l.alternatives(func(int32) bool { return true })[:min(4, len(l.alternatives(func(int32) bool { return true })))] {
				variants = append(variants, l.with(a))
			}
			for vi, v := range variants {
				v.bladesOnly = vi%2 == 1
				n := int64(len(v.pt.bufs))
				for _, maxWork := range []int64{maxRectWork, 3 * n, 40 * n} {
					tried++
					got, gw, ok := rectsTry(v, nil, maxWork, false)
					want, ww, _ := rectsTry(v, nil, maxWork, true)
					if !ok {
						continue // more than one band: rectsOf is not asked
					}
					name := fmt.Sprintf("%s: layout of %d buffers, variant %d, maxWork %d", spec, n, vi, maxWork)
					compareRects(t, name, got, want, gw, ww)
					if got != nil {
						found++
						for _, hint := range [][2]int32{got.rect, {-1, -1}, {got.rect[0], -1}} {
							hg, hgw, _ := rectsTry(v, &hint, maxWork, false)
							hw, hww, _ := rectsTry(v, &hint, maxWork, true)
							compareRects(t, fmt.Sprintf("%s hint %v", name, hint), hg, hw, hgw, hww)
						}
					}
				}
			}
		}
	}
	if found == 0 || tried < 50 {
		t.Fatalf("%d tries, %d with rectangles: the test looks at too little", tried, found)
	}
	t.Logf("%d tries, %d with rectangles", tried, found)
}

// rectsTry runs rectsOf (or rectsOfRef) on l's groups, as buildWithin
// would where l is one band: the rectangles, the work counted, and false
// where l is more than one band.
func rectsTry(l *layout, hint *[2]int32, maxWork int64, ref bool) (*banded, int64, bool) {
	in, pt := l.in, l.pt
	n := len(pt.bufs)
	parent := make(forest, n)
	find := parent.find
	groups := l.groups()
	join := func(cut []bool) {
		parent.reset()
		for gi, g := range groups {
			if cut != nil && cut[gi] {
				continue
			}
			for _, k := range g.bufs[1:] {
				parent[find(l.local[k])] = find(l.local[g.bufs[0]])
			}
		}
	}
	join(nil)
	if _, roots := classesOf(pt.bufs, find); len(roots) >= 2 {
		return nil, 0, false
	}
	p := &pace{b: &budget{ctx: context.Background(), nodes: -1}}
	var work int64
	if ref {
		return rectsOfRef(in, pt, l.c, l.rev, p, groups, join, find, hint, &work, maxWork, l.bladesOnly), work, true
	}
	return rectsOf(in, pt, l.c, l.rev, p, groups, l.local, hint, &work, maxWork, l.bladesOnly), work, true
}

// compareRects fails t where got and want differ: nil or not, the
// boundaries cut, the bands' buffers and heights, the coarse problem.
func compareRects(t *testing.T, name string, got, want *banded, gw, ww int64) {
	t.Helper()
	if gw != ww {
		t.Errorf("%s: work %d, reference %d", name, gw, ww)
	}
	if (got == nil) != (want == nil) {
		t.Errorf("%s: rectangles %v, reference %v", name, got != nil, want != nil)
		return
	}
	if got == nil {
		return
	}
	if got.rect != want.rect || len(got.bands) != len(want.bands) {
		t.Errorf("%s: cut %v with %d bands, reference %v with %d", name, got.rect, len(got.bands), want.rect, len(want.bands))
		return
	}
	for i := range got.bands {
		g, w := got.bands[i], want.bands[i]
		if g.h != w.h || !slices.Equal(g.ks, w.ks) {
			t.Errorf("%s: band %d: height %d buffers %v, reference %d %v", name, i, g.h, g.ks, w.h, w.ks)
		}
	}
	gc, wc := got.coarse.outer, want.coarse.outer
	if !slices.Equal(gc.size, wc.size) || !slices.Equal(gc.first, wc.first) || !slices.Equal(gc.last, wc.last) {
		t.Errorf("%s: coarse problems differ", name)
	}
}
