package exact

import (
	"cmp"
	"context"
	"encoding/binary"
	"math/bits"
	"slices"

	"membench/workloads"
)

// Bands. In a packing with no slack, the bytes the buffers ending at a
// boundary leave are exactly those the buffers starting there take, hole
// by hole, so a group of ending buffers is refilled by a group of
// starting ones of the same total. Pair the groups of each boundary by
// their totals (pairGroups) and join the buffers of each pair, or every
// buffer of the boundary where no pairing is found. The classes this
// leaves each hold the same number of bytes at every section: a band. A
// guillotine packing whose sizes match in one way only is made of such
// bands side by side, and each band, packed apart at its own height,
// often splits again, in time and into bands. So the banded engine packs
// the bands one above the other, each with fillers of its own. It finds
// packings and never proves one impossible: bands need not lie side by
// side in every packing, so when a band cannot be packed apart the engine
// gives up and the plain fillers beside it go on.

// maxBandSide is the most buffers on either side of a boundary whose
// groups are paired.
const maxBandSide = 10

// packer packs one part with no slack of its own instance, counting its
// nodes on a pace it shares with the engine that holds it.
type packer interface {
	pack(c int64) outcome
	// packed holds the offsets found, by search buffer of its instance.
	packed() []int64
}

type plainPacker struct {
	f  *filler
	pt *part
}

func (p plainPacker) pack(c int64) outcome { return p.f.search(p.pt, c) }
func (p plainPacker) packed() []int64      { return p.f.sol }

func (ch *chained) pack(c int64) outcome {
	res := ch.filler.search(&ch.filler.in.parts[0], c)
	if res == found {
		for _, k := range ch.bufs {
			ch.sol[k] = ch.filler.sol[ch.of[k]]
		}
	}
	return res
}
func (ch *chained) packed() []int64 { return ch.sol }

// banded packs a part as bands one above the other.
type banded struct {
	p     *pace
	bands []stripe
	// coarse, where set, packs the bands as buffers (rectsOf): band i
	// goes where its buffer i does; else they go one above the other.
	coarse *stripe
	sol    []int64 // by search buffer of the outer instance
	// lay is the pairing the bands come from: where a band fails within
	// its cap, pack looks for other pairings (repair).
	lay *layout
	// rect holds the boundaries rectsOf left unjoined, -1 where none
	// (or the bands lie one above the other).
	rect [2]int32
	// next lists the engines of other pairings to try after this one
	// (split's).
	next []*banded
	// inert is the engine of lay with its wide boundaries paired by
	// the classes (packInert), made on its first use; b itself where
	// there is none.
	inert *banded
}

type stripe struct {
	h    int64
	in   *instance
	ks   []int32  // per buffer of the band's problem: the outer search buffer
	kids []packer // one per part of in
	// outer is the instance ks index, rev the way its fillers sweep;
	// built: in and kids are made (build), on the stripe's first
	// packing (a band of one buffer needs neither).
	outer *instance
	rev   bool
	built bool
	// inert: the parts of the band pair their wide boundaries by the
	// classes first (inertPaired), as the layout that made it did.
	inert bool
}

// newBanded returns the banded engine of pt at capacity c, sweeping one
// way (rev), or nil where pt is one band (or bud ended while it looked).
func newBanded(in *instance, pt *part, c int64, rev, repair bool, bud *budget) (*banded, *layout) {
	return bandsOf(in, pt, c, rev, &pace{b: bud, repair: repair}, false)
}

// newSplitter returns the engine that packs pt, one band with no
// rectangles as l pairs it, by the bands of pairings that split it
// (split), sweeping one way (rev); its fillers run apart.
func newSplitter(l *layout, rev bool, bud *budget) *splitting {
	nl := *l
	nl.rev, nl.fits, nl.failed = rev, map[string][]int64{}, map[string]int64{}
	return &splitting{l: &nl, p: &pace{b: bud, repair: true}}
}

// like returns an engine of b's bands, made afresh (none packed) on a
// pace of its own, sweeping one way (rev) and repairing or not: the
// pairing and rectangles of a part are the same both ways.
func (b *banded) like(rev, repair bool) *banded {
	nl := *b.lay
	nl.rev, nl.fits, nl.failed = rev, map[string][]int64{}, map[string]int64{}
	nb := &banded{p: &pace{b: b.p.b, repair: repair}, sol: make([]int64, len(b.sol)), lay: &nl, rect: b.rect}
	for _, bd := range b.bands {
		nb.bands = append(nb.bands, stripe{h: bd.h, ks: bd.ks, outer: bd.outer, rev: rev, inert: bd.inert})
	}
	if cs := b.coarse; cs != nil {
		nb.coarse = &stripe{h: cs.h, ks: cs.ks, outer: cs.outer, rev: rev, inert: cs.inert}
	}
	return nb
}

// likeAll is like for b and the engines of b.next (split's pairings),
// all on pace p and repairing; nil for nil.
func (b *banded) likeAll(rev bool, p *pace) *banded {
	if b == nil {
		return nil
	}
	nb := b.like(rev, true)
	nb.p = p
	for _, x := range b.next {
		y := x.like(rev, true)
		y.p = p
		nb.next = append(nb.next, y)
	}
	return nb
}

func (b *banded) solve(_ *part, c, limit int64) outcome {
	b.p.limit, b.p.count, b.p.quit = limit, 0, false
	return b.pack(c)
}

func (b *banded) pacer() *pace     { return b.p }
func (b *banded) offsets() []int64 { return b.sol }
func (b *banded) packed() []int64  { return b.sol }

// bandCap is the nodes a band of n buffers may spend at multiple mult
// before it is taken as wrongly paired: bands of right pairs pack in
// about a node a buffer, some in several times that. A band is tried at
// capLow, then at capHigh, before its pairing is changed (repair's
// tries get capLow); a run's own part sweeping forward tries its wide
// boundaries paired by the classes (packInert) between the two.
func bandCap(n int, mult int64) int64 { return mult * (int64(n) + 8) }

const (
	capLow  = 8
	capHigh = 64
)

// pack packs the bands, each within its cap, from the bottom up or where
// the coarse packing puts them. Where some band fails at both caps, it
// looks for other pairings at the boundaries of the failing bands
// (repair; sweeping forward in a run's own part, its wide boundaries
// paired by the classes come first, packInert), and failing that packs
// the bands of its first pairing with
// no cap of their own. A band packed apart that has no packing is no
// proof: the part is then given up as aborted.
func (b *banded) pack(int64) outcome {
	p := b.p
	if !p.repair {
		res, _ := b.packBands(0)
		return res
	}
	res, fails := b.packBands(capLow)
	if fails != nil && p.stop == 0 && !b.lay.rev {
		// A run's own part (no enclosing cap), sweeping forward: its
		// wide boundaries paired by the classes first (the backward run
		// tries them after its high caps, in repair).
		if b.packInert(capLow, capHigh) == found {
			return found
		}
		if p.ended() {
			return aborted
		}
	}
	if fails != nil {
		res, fails = b.packBands(capHigh)
	}
	if fails == nil {
		return res
	}
	if b.repair(fails) == found {
		return found
	}
	if p.ended() || p.stop > 0 && p.count > p.stop {
		return aborted
	}
	res, _ = b.packBands(0)
	return res
}

// repairCap is the nodes repair may spend on a part of n buffers.
func repairCap(n int) int64 { return 16 * (int64(n) + 8) }

// within runs f with at most nodes more nodes (less where an enclosing
// cap ends sooner) and returns what it returned.
func (p *pace) within(nodes int64, f func() bool) bool {
	outer := p.stop
	p.stop = p.count + nodes
	if outer > 0 {
		p.stop = min(p.stop, outer)
	}
	ok := f()
	p.stop = outer
	return ok
}

// packBands packs the bands, each within its cap at mult (0: none). It
// returns found; or aborted with the bands that failed (within their
// caps, or with no packing apart); or aborted and nil where the search
// must stop (its driver, the budget or an enclosing cap ended it).
func (b *banded) packBands(mult int64) (outcome, []int) {
	p := b.p
	l := b.lay
	var base []int64
	if cs := b.coarse; cs != nil {
		base = make([]int64, len(b.bands))
		if !cs.pack(p, 0, func(k int32, off int64) { base[k] = off }) {
			if p.ended() || p.stop > 0 && p.count > p.stop {
				return aborted, nil
			}
			// The rectangles do not fit together: every band is to blame.
			all := make([]int, len(b.bands))
			for i := range all {
				all[i] = i
			}
			return aborted, all
		}
	}
	var fails []int
	var bottom int64
	for i := range b.bands {
		bd := &b.bands[i]
		at := bottom
		if base != nil {
			at = base[i]
		}
		bottom += bd.h
		if len(bd.ks) == 1 {
			b.sol[bd.ks[0]] = at // a band of one buffer
			continue
		}
		key := bandKey(bd.ks)
		if offs, ok := l.fits[key]; ok {
			for j, k := range bd.ks {
				b.sol[k] = at + offs[j]
			}
			continue
		}
		if m, ok := l.failed[key]; ok && mult > 0 && m >= mult {
			fails = append(fails, i)
			continue
		}
		outer := p.stop
		packIt := func() bool { return bd.pack(p, at, func(k int32, off int64) { b.sol[k] = off }) }
		var ok bool
		if mult > 0 {
			ok = p.within(bandCap(len(bd.ks), mult), packIt)
		} else {
			ok = packIt()
		}
		if p.ended() || outer > 0 && p.count > outer {
			return aborted, nil
		}
		if !ok {
			if mult == 0 {
				return aborted, []int{i}
			}
			l.failed[key] = mult
			fails = append(fails, i)
			continue
		}
		offs := make([]int64, len(bd.ks))
		for j, k := range bd.ks {
			offs[j] = b.sol[k] - at
		}
		l.fits[key] = offs
	}
	if fails != nil {
		return aborted, fails
	}
	return found, nil
}

// bandKey names a band by its buffers.
func bandKey(ks []int32) string {
	buf := make([]byte, 0, 4*len(ks))
	for _, k := range ks {
		buf = append(buf, byte(k), byte(k>>8), byte(k>>16), byte(k>>24))
	}
	return string(buf)
}

// pack packs the stripe's parts on pace p (making its packers first),
// handing each buffer's offset, base added, to put; false where a part
// was not packed or the stripe is no band.
func (bd *stripe) pack(p *pace, base int64, put func(k int32, off int64)) bool {
	if !bd.built {
		if !bd.build(p) {
			return false
		}
	}
	for i, kid := range bd.kids {
		if kid.pack(bd.h) != found {
			return false
		}
		offs := kid.packed()
		for _, kk := range bd.in.parts[i].bufs {
			put(bd.ks[bd.in.idx[kk]], base+offs[kk])
		}
	}
	return true
}

// newPacker returns the packer of pt (with no slack at c) on pace p: its
// bands where it has several, else its filler, chains merged.
func newPacker(in *instance, pt *part, c int64, rev bool, p *pace, inert bool) packer {
	b, l := bandsOf(in, pt, c, rev, p, inert)
	if b != nil {
		return b
	}
	var f packer
	switch e := newPartFiller(in, pt, rev).(type) {
	case *chained:
		e.pace = p
		f = e
	case *filler:
		e.pace = p
		f = plainPacker{e, pt}
	default:
		panic("exact: unknown filler")
	}
	if !p.repair {
		return f
	}
	return &splitting{f: f, l: l, p: p}
}

// layout is the pairing of the groups of each boundary of a part, from
// which bandsOf makes its bands.
type layout struct {
	in  *instance
	pt  *part
	c   int64
	rev bool
	bds []boundary
	// fits holds, by bandKey, the offsets of each band packed (from its
	// base), failed the largest cap multiple at which one was not: the
	// layouts repair tries share most of their bands.
	fits   map[string][]int64
	failed map[string]int64
	// local[k] is buffer k's index in pt.bufs.
	local []int32
	// bladesOnly: rectsOf tries only the pairs of boundaries where a
	// pinwheel's first and last blades would end and start (split's
	// pairings, tried by the hundred).
	bladesOnly bool
	// inert: its wide boundaries were paired by the classes
	// (inertPaired), and so are those of its bands' parts.
	inert bool
}

// boundary holds the buffers ending (e) and starting (st) at section
// boundary s of the part, and their pairs, as masks of e and st (nil:
// the whole boundary is one group). A boundary with more than
// maxBandSide buffers a side has its twins (twinsOf) apart, a boundary
// of one pair each, and the rest in one more.
type boundary struct {
	s     int32
	e, st []int32
	pairs [][2]uint64
}

// groups lists the groups of every boundary, each as its buffers.
func (l *layout) groups() []group {
	var groups []group
	for _, bd := range l.bds {
		if bd.pairs == nil {
			groups = append(groups, group{bd.s, append(slices.Clone(bd.e), bd.st...)})
			continue
		}
		for _, pr := range bd.pairs {
			groups = append(groups, group{bd.s, pairBufs(bd, pr)})
		}
	}
	return groups
}

// pairBufs lists the buffers of pair pr of bd.
func pairBufs(bd boundary, pr [2]uint64) []int32 {
	var g []int32
	for side, m := range pr {
		for i, k := range [2][]int32{bd.e, bd.st}[side] {
			if m&(1<<i) != 0 {
				g = append(g, k)
			}
		}
	}
	return g
}

// bandsOf splits pt into its bands and makes their packers, or returns
// nil where it is one band (or a band does not come out with no slack,
// which cannot happen); and the pairing it found. With inert, on a pace
// that repairs, a part with wide boundaries is paired by the classes
// (inertPaired) and that pairing alone is returned, even where it is
// one band: the caller then splits that pairing (layout.split).
func bandsOf(in *instance, pt *part, c int64, rev bool, p *pace, inert bool) (*banded, *layout) {
	ns := pt.secHi - pt.secLo
	ends, starts := make([][]int32, ns+1), make([][]int32, ns+1)
	for _, k := range pt.bufs {
		starts[in.secLo[k]-pt.secLo] = append(starts[in.secLo[k]-pt.secLo], k)
		ends[in.secHi[k]-pt.secLo] = append(ends[in.secHi[k]-pt.secLo], k)
	}
	l := &layout{in: in, pt: pt, c: c, rev: rev, fits: map[string][]int64{}, failed: map[string]int64{}, local: make([]int32, len(in.size))}
	for i, k := range pt.bufs {
		l.local[k] = int32(i)
	}
	var a, bs []int64
	for s := int32(1); s < ns; s++ {
		e, st := ends[s], starts[s]
		if len(e) == 0 || len(st) == 0 {
			continue // not without slack: the checks below refuse it
		}
		if len(e) > maxBandSide || len(st) > maxBandSide {
			// Twins first, each a boundary of its own.
			var tw [][2]int32
			tw, e, st = twinsOf(in, e, st)
			for _, x := range tw {
				l.bds = append(l.bds, boundary{s: s, e: []int32{x[0]}, st: []int32{x[1]}, pairs: [][2]uint64{{1, 1}}})
			}
			if len(e) == 0 || len(st) == 0 {
				continue
			}
		}
		a, bs = a[:0], bs[:0]
		for _, k := range e {
			a = append(a, in.size[k])
		}
		for _, k := range st {
			bs = append(bs, in.size[k])
		}
		bd := boundary{s: s, e: e, st: st}
		if len(e) <= 64 && len(st) <= 64 { // the masks' width
			bd.pairs = p.b.pairsOf(a, bs)
		}
		l.bds = append(l.bds, bd)
	}
	l.inert = inert
	if inert && p.repair {
		if il := l.inertPaired(p); il != nil {
			return il.build(p, nil), il
		}
	}
	return l.build(p, nil), l
}

// build makes the bands of l's pairing, or rectangles where they are one
// band: searched for (rectsOf) where rect is nil, else only at the
// boundaries rect names. Nil where neither is found.
func (l *layout) build(p *pace, rect *[2]int32) *banded {
	var work int64
	return l.buildWithin(p, rect, &work, maxRectWork)
}

// buildWithin is build, its search for rectangles adding its steps to
// work and stopping once work passes maxWork.
func (l *layout) buildWithin(p *pace, rect *[2]int32, work *int64, maxWork int64) *banded {
	in, pt, c := l.in, l.pt, l.c
	n := len(pt.bufs)
	local := l.local
	parent := make(forest, n)
	parent.reset()
	find := parent.find
	groups := l.groups()
	for _, g := range groups {
		for _, k := range g.bufs[1:] {
			parent[find(local[k])] = find(local[g.bufs[0]])
		}
	}
	classes, roots := classesOf(pt.bufs, find)
	if len(roots) < 2 {
		b := rectsOf(in, pt, c, l.rev, p, groups, local, rect, work, maxWork, l.bladesOnly)
		if b != nil {
			b.lay = l
			b.setInert(l.inert)
		}
		return b
	}
	b := &banded{p: p, sol: make([]int64, len(in.size)), lay: l, rect: [2]int32{-1, -1}}
	var total int64
	for _, r := range roots {
		ks := classes[r]
		var h int64
		for _, k := range ks {
			if in.secLo[k] == pt.secLo {
				h += in.size[k]
			}
		}
		total += h
		b.bands = append(b.bands, stripe{h: h, ks: ks, outer: in, rev: l.rev})
	}
	if total != c {
		return nil
	}
	b.setInert(l.inert)
	return b
}

// setInert marks b's stripes inert or not.
func (b *banded) setInert(inert bool) {
	for i := range b.bands {
		b.bands[i].inert = inert
	}
	if b.coarse != nil {
		b.coarse.inert = inert
	}
}

// build makes the stripe's problem and the packers of its parts on pace
// p; false where some part of it has slack.
func (bd *stripe) build(p *pace) bool {
	bd.built = true
	in, ks := bd.outer, bd.ks
	sub := &workloads.Problem{Name: "band", Alignment: in.align}
	for i, k := range ks {
		sub.Buffers = append(sub.Buffers, workloads.Buffer{ID: i, Size: in.size[k], First: in.first[k], Last: in.last[k]})
	}
	bin, err := newInstance(context.Background(), sub)
	if err != nil || len(bin.size) != len(ks) {
		return false
	}
	bd.in = bin
	for i := range bin.parts {
		bp := &bin.parts[i]
		if !bin.zeroSlack(bp, bd.h) {
			bd.kids = nil
			return false
		}
		bd.kids = append(bd.kids, newPacker(bin, bp, bd.h, bd.rev, p, bd.inert))
	}
	return true
}

// forest is a union-find over the buffers of a part, by index there.
type forest []int32

// reset makes every buffer a class of its own.
func (f forest) reset() {
	for i := range f {
		f[i] = int32(i)
	}
}

// find returns the root of x's class.
func (f forest) find(x int32) int32 {
	for f[x] != x {
		f[x] = f[f[x]]
		x = f[x]
	}
	return x
}

// group is a group of the buffers ending and starting at boundary s
// that bandsOf pairs.
type group struct {
	s    int32
	bufs []int32
}

// maxRectWork bounds the steps rectsOf spends trying boundaries and
// pairs of them: part buffers times tries (about 0.1 s unloaded).
const maxRectWork = 1 << 23

// rectsOf looks, in a part that is one band, for one boundary or two
// whose groups, left unjoined, leave classes that each hold one load
// over their own lifetime: rectangles, such as the blades and centre of
// a pinwheel. Each class of several buffers is packed as one buffer of
// its height in a coarse problem of the classes, then apart inside the
// place the coarse packing gives it. Nil where none is found. local[k]
// is buffer k's index in pt.bufs.
//
// A blade that lives across the boundary where others meet may be cut
// there inside too: leaving that group unjoined leaves pieces of it
// whose load changes there. Such groups are joined again, until every
// class is a rectangle or none is left unjoined (repair). Pairs of
// boundaries are tried first where one is the latest end of the
// buffers that start before the other, or the other the earliest start
// of those that end after the one: in a pinwheel, the blade below the
// centre lives across the first boundary and ends at the second, the
// one above it starts at the first and lives across the second, and no
// buffer lives across both. Then the other pairs, within maxRectWork
// (each try counts the part's buffers, as when it joined them afresh).
//
// The joins of each try are not made afresh: a union-find that undoes
// its unions (its classes' spans kept at their roots) has the groups of
// every boundary but those tried joined by halves (as rebalanced's),
// the tries visited in order, so that a try costs the buffers of its
// own boundaries, not those of the part.
func rectsOf(in *instance, pt *part, c int64, rev bool, p *pace, groups []group, local []int32, hint *[2]int32, work *int64, maxWork int64, bladesOnly bool) *banded {
	ns := pt.secHi - pt.secLo
	n := len(pt.bufs)
	lo0, hi0 := make([]int32, n), make([]int32, n)
	// ends[s], starts[s]: the buffers (by index in the part) that end or
	// start at boundary s, where a class that ends or starts there has
	// one.
	ends, starts := make([][]int32, ns+1), make([][]int32, ns+1)
	for i, k := range pt.bufs {
		lo0[i], hi0[i] = in.secLo[k]-pt.secLo, in.secHi[k]-pt.secLo
		ends[hi0[i]] = append(ends[hi0[i]], int32(i))
		starts[lo0[i]] = append(starts[lo0[i]], int32(i))
	}
	u := newSpanForest(lo0, hi0)
	net := make([]int64, n)
	bad := make([]uint8, n) // per class: bit x where bad at the x-th boundary
	// at[s] lists the groups of boundary s.
	at := make([][]int, ns+1)
	for gi, g := range groups {
		at[g.s] = append(at[g.s], gi)
	}
	joinGroup := func(gi int) {
		g := groups[gi].bufs
		for _, k := range g[1:] {
			u.union(local[k], local[g[0]])
		}
	}
	// joinSecs joins the groups of boundaries a to b-1 but skip's.
	joinSecs := func(a, b, skip int32) {
		for s := max(a, 1); s < min(b, ns); s++ {
			if s != skip {
				for _, gi := range at[s] {
					joinGroup(gi)
				}
			}
		}
	}
	cut := make([]bool, len(groups))
	var firstSeen, lastSeen bool
	var s1, s2 int32
	var rejoin []int
	// eachCut calls, boundary by boundary (s1: x = 0, s2: x = 1), each
	// pass in turn on every buffer k of the boundary's unjoined groups; a
	// pass that returns true for some buffer of a group joins that group
	// again (once every pass is done).
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
							cut[gi] = false
							rejoin = append(rejoin, gi)
							break
						}
					}
				}
			}
		}
	}
	// par and lo are the classes of the try that found rectangles: par
	// every buffer's root, lo[r] the first section of class r.
	var par forest
	var lo []int32
	// rect tries b1 and b2 left unjoined, every other boundary's groups
	// joined in u; it leaves u as it found it.
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
		h := len(u.hist)
		defer u.undo(h)
		for {
			*work += int64(n)
			if s2 < 0 && s1 >= 0 && !firstSeen && !lastSeen {
				for _, i := range ends[s1] {
					r := u.find(i)
					firstSeen = firstSeen || u.lo[r] == 0 && u.hi[r] == s1
				}
				for _, i := range starts[s1] {
					r := u.find(i)
					lastSeen = lastSeen || u.lo[r] == s1 && u.hi[r] == ns
				}
			}
			if u.comps < 2 || u.comps == n {
				return false
			}
			// A class whose load changes at s1 or s2 inside its lifetime
			// is bad.
			anyBad := false
			eachCut(func(x int, s int32, k int32) bool {
				r := u.find(local[k])
				if in.secLo[k]-pt.secLo == s {
					net[r] += in.size[k]
				} else {
					net[r] -= in.size[k]
				}
				return false
			}, func(x int, s int32, k int32) bool {
				if r := u.find(local[k]); net[r] != 0 && u.lo[r] != s && u.hi[r] != s {
					bad[r], anyBad = bad[r]|1<<x, true
				}
				return false
			}, func(x int, s int32, k int32) bool {
				net[u.find(local[k])] = 0
				return false
			})
			if !anyBad {
				par, lo = make(forest, n), make([]int32, n)
				for i := range par {
					r := u.find(int32(i))
					par[i], lo[r] = r, u.lo[r]
				}
				return true
			}
			// Repair: join again the unjoined groups that hold a buffer
			// of a class bad at their boundary.
			rejoin = rejoin[:0]
			eachCut(func(x int, s int32, k int32) bool {
				return bad[u.find(local[k])]&(1<<x) != 0
			})
			eachCut(func(x int, s int32, k int32) bool {
				bad[u.find(local[k])] = 0
				return false
			})
			for _, gi := range rejoin {
				for _, k := range groups[gi].bufs {
					bad[u.find(local[k])] = 0
				}
				joinGroup(gi)
			}
			if len(rejoin) == 0 {
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
	for i := range n {
		maxHi[lo0[i]+1] = max(maxHi[lo0[i]+1], hi0[i])
		minLo[hi0[i]-1] = min(minLo[hi0[i]-1], lo0[i])
	}
	for s := int32(1); s <= ns; s++ {
		maxHi[s] = max(maxHi[s], maxHi[s-1])
	}
	for s := ns - 1; s >= 0; s-- {
		minLo[s] = min(minLo[s], minLo[s+1])
	}
	split, quit := false, false
	if hint != nil {
		// Another pairing of a part whose rectangles were found: only
		// the boundaries they were found at are tried.
		for s := int32(1); s < ns; s++ {
			if s != hint[0] && s != hint[1] {
				for _, gi := range at[s] {
					joinGroup(gi)
				}
			}
		}
		split = rect(hint[0], hint[1])
		return rectsDone(in, pt, c, rev, p, par.find, split, lo, [2]int32{s1, s2})
	}
	// sweep visits the boundaries cands (ascending, within [a, b)) in
	// order, each with every boundary of [a, b) but it joined (besides
	// what u holds), by halves: false where visit stopped it.
	var sweep func(a, b int32, cands []int32, skip int32, visit func(s int32) bool) bool
	sweep = func(a, b int32, cands []int32, skip int32, visit func(s int32) bool) bool {
		if len(cands) == 0 {
			return true
		}
		if b-a == 1 {
			return visit(a)
		}
		mid := (a + b) / 2
		i, _ := slices.BinarySearch(cands, mid)
		h := len(u.hist)
		if i > 0 {
			joinSecs(mid, b, skip)
			ok := sweep(a, mid, cands[:i], skip, visit)
			u.undo(h)
			if !ok {
				return false
			}
		}
		if i < len(cands) {
			joinSecs(a, mid, skip)
			ok := sweep(mid, b, cands[i:], skip, visit)
			u.undo(h)
			return ok
		}
		return true
	}
	// try tries b1 and b2 unless the work or the budget is spent (quit).
	try := func(b1, b2 int32) bool {
		if *work > maxWork || p.b.spent() {
			quit = true
			return false
		}
		split = rect(b1, b2)
		return !split
	}
	first, last := make([]bool, ns+1), make([]bool, ns+1)
	all := make([]int32, 0, ns)
	for s := int32(1); s < ns; s++ {
		all = append(all, s)
	}
	sweep(1, ns, all, -1, func(s int32) bool {
		ok := try(s, -1)
		first[s], last[s] = firstSeen, lastSeen
		return ok
	})
	// Pairs of boundaries no buffer lives across both: first those
	// where, each left unjoined alone, a class ends at the first having
	// started with the part and one starts at the second and ends with
	// it (a pinwheel's first and last blades), then the others.
	var cands []int32
	for _, blades := range []bool{true, false} {
		if !blades && bladesOnly {
			break
		}
		for s1 := int32(1); s1 < ns && !split && !quit; s1++ {
			cands = cands[:0]
			for s2 := max(s1+1, maxHi[s1]); s2 < ns; s2++ {
				if minLo[s2] >= s1 && blades == (first[s1] && last[s2]) {
					cands = append(cands, s2)
				}
			}
			if len(cands) == 0 {
				continue
			}
			a, b := cands[0], cands[len(cands)-1]+1
			h := len(u.hist)
			joinSecs(1, a, s1)
			joinSecs(b, ns, s1)
			sweep(a, b, cands, s1, func(s int32) bool { return try(s1, s) })
			u.undo(h)
		}
	}
	if quit {
		return nil
	}
	return rectsDone(in, pt, c, rev, p, par.find, split, lo, [2]int32{s1, s2})
}

// rectsDone makes the rectangles that rectsOf found (split) by leaving
// the groups of boundaries cut unjoined: the classes of find, lo[r] the
// first section of class r in the part.
func rectsDone(in *instance, pt *part, c int64, rev bool, p *pace, find func(int32) int32, split bool, lo []int32, cut [2]int32) *banded {
	if !split || p.b.spent() {
		return nil
	}
	// The classes, and the coarse problem of one buffer each.
	classes, roots := classesOf(pt.bufs, find)
	coarse := &workloads.Problem{Name: "rectangles", Alignment: in.align}
	b := &banded{p: p, sol: make([]int64, len(in.size)), rect: cut}
	for i, r := range roots {
		ks := classes[r]
		var h int64
		first, last := in.first[ks[0]], in.last[ks[0]]
		for _, k := range ks {
			if in.secLo[k]-pt.secLo == lo[r] {
				h += in.size[k]
			}
			first, last = min(first, in.first[k]), max(last, in.last[k])
		}
		coarse.Buffers = append(coarse.Buffers, workloads.Buffer{ID: i, Size: h, First: first, Last: last})
		b.bands = append(b.bands, stripe{h: h, ks: ks, outer: in, rev: rev})
	}
	cin, err := newInstance(context.Background(), coarse)
	if err != nil || len(cin.size) != len(roots) {
		return nil
	}
	all := make([]int32, len(roots))
	for i := range all {
		all[i] = int32(i)
	}
	b.coarse = &stripe{h: c, ks: all, outer: cin, rev: rev}
	return b
}

// pairsOf is pairGroups(a, b), remembered: the engines of a plan pair
// the same boundaries again (both ways, each trial at a part's peak,
// bands of other pairings).
func (bud *budget) pairsOf(a, b []int64) [][2]uint64 {
	key := make([]byte, 0, 8*(len(a)+len(b))+1)
	for _, x := range a {
		key = binary.LittleEndian.AppendUint64(key, uint64(x))
	}
	key = append(key, '|')
	for _, x := range b {
		key = binary.LittleEndian.AppendUint64(key, uint64(x))
	}
	if pairs, ok := bud.pairs[string(key)]; ok {
		return pairs
	}
	pairs := pairGroups(a, b)
	if bud.pairs == nil {
		bud.pairs = map[string][][2]uint64{}
	}
	bud.pairs[string(key)] = pairs
	return pairs
}

// pairGroups pairs the sizes a ending at a boundary with the sizes b
// starting there (of equal totals) into groups of equal totals, as bit
// masks: the finest groups of each side whose totals some group of the
// other side has, those of one total taken together. Where that leaves
// groups unpaired, and for sides of more than maxBandSide buffers,
// pairLarge pairs them instead. Each side has at most 64 buffers.
func pairGroups(a, b []int64) [][2]uint64 {
	if len(a) == 1 || len(b) == 1 {
		return [][2]uint64{{1<<len(a) - 1, 1<<len(b) - 1}}
	}
	if len(a) > maxBandSide || len(b) > maxBandSide {
		return pairLarge(a, b)
	}
	ga, gb := atoms(a, b), atoms(b, a)
	if ga == nil || gb == nil || len(ga) != len(gb) {
		return pairLarge(a, b)
	}
	var pairs [][2]uint64
	for sum, x := range ga {
		y, ok := gb[sum]
		if !ok || maskSum(a, x) != maskSum(b, y) {
			return pairLarge(a, b)
		}
		pairs = append(pairs, [2]uint64{x, y})
	}
	slices.SortFunc(pairs, func(p, q [2]uint64) int { return cmp.Compare(p[0], q[0]) })
	return pairs
}

// atoms returns the finest groups of a whose totals are totals of groups
// of b (for each buffer, the buffers in every such group that holds it),
// those of one atom's total taken together, by that total. Nil unless
// they partition a.
func atoms(a, b []int64) map[int64]uint64 {
	sums := make(map[int64]bool, 1<<len(b))
	for m := uint64(1); m < 1<<len(b); m++ {
		sums[maskSum(b, m)] = true
	}
	all := uint64(1)<<len(a) - 1
	bound := make([]uint64, len(a))
	for i := range bound {
		bound[i] = all
	}
	for m := uint64(1); m <= all; m++ {
		if sums[maskSum(a, m)] {
			for i := range a {
				if m&(1<<i) != 0 {
					bound[i] &= m
				}
			}
		}
	}
	gs := map[int64]uint64{}
	for _, g := range bound {
		for j := range a {
			if g&(1<<j) != 0 && bound[j] != g {
				return nil
			}
		}
		gs[maskSum(a, g)] |= g
	}
	return gs
}

// maxPairSum is the largest total pairLarge pairs: its tables take a
// bit per byte of it per buffer.
const maxPairSum = 1 << 22

// maxPairWords bounds pairLarge's tables: the buffers of both sides
// times the words of a total (8 MiB).
const maxPairWords = 1 << 20

// maxPairSides is the most buffers pairLarge pairs, both sides
// together: 56 lets bands pack tiling?n=1000&sizes=uniform (48 did
// not), and with up to 62 the contention tilings took 2 to 35 times the
// CPU of their search.
const maxPairSides = 56

// maxGroupPairs is the most pairs pairLarge looks for.
const maxGroupPairs = 8

// pairLarge pairs large sides: while some total below the whole is the
// total of a group of each side, it pairs such groups of the least
// total, found by bitsets of the sums of groups, and the rest last (after
// maxGroupPairs pairs, too). Nil where the total is above maxPairSum,
// the sides hold more than maxPairSides buffers or tables of every sum
// would pass maxPairWords. Where sums are dense the groups it
// pairs may not be those of the holes: the bands then fail to pack, which
// costs nodes but never a packing.
func pairLarge(a, b []int64) [][2]uint64 {
	if !pairable(a, b) {
		return nil
	}
	restA, restB := uint64(1)<<len(a)-1, uint64(1)<<len(b)-1
	var pairs [][2]uint64
	for {
		g := int64(-1)
		if len(pairs) < maxGroupPairs {
			g = leastCommonSum(a, restA, b, restB)
		}
		if g < 0 {
			return append(pairs, [2]uint64{restA, restB})
		}
		x, y := pickSum(a, restA, sumTable(a, restA, g), g), pickSum(b, restB, sumTable(b, restB, g), g)
		pairs = append(pairs, [2]uint64{x, y})
		restA, restB = restA&^x, restB&^y
	}
}

// pairable says whether pairLarge pairs sides a and b: their total is
// at most maxPairSum, they hold at most maxPairSides buffers and tables
// of every sum for both would take at most maxPairWords.
func pairable(a, b []int64) bool {
	var total int64
	for _, x := range a {
		total += x
	}
	return total <= maxPairSum && len(a)+len(b) <= maxPairSides && int64(len(a)+len(b)+2)*(total/64+1) <= maxPairWords
}

// leastCommonSum returns the least total g, 0 < g < rest (the total of
// the buffers of a in ma, which those of b in mb share), that a group of
// each side reaches, or -1. The complements of two such groups reach
// rest-g, so the least is at most rest/2: the sums are taken up to
// there, and up to 64 words first, twice as many each time none is
// found (most boundaries pair a small group first).
func leastCommonSum(a []int64, ma uint64, b []int64, mb uint64) int64 {
	rest := maskSum(a, ma)
	return leastCommon(rest, int(rest/2/64+1), func(words int) ([]uint64, []uint64) {
		return reachable(a, ma, words), reachable(b, mb, words)
	})
}

// leastCommon returns the least total g, 0 < g < rest, set in both
// bitsets that reach gives of a number of words (up to all): 64 words
// first, twice as many each time none is found; -1 where none is.
func leastCommon(rest int64, all int, reach func(words int) (fa, fb []uint64)) int64 {
	for words := min(64, all); ; words = min(2*words, all) {
		fa, fb := reach(words)
		for w := range fa {
			for m := fa[w] & fb[w]; m != 0; m &= m - 1 {
				if x := int64(w)*64 + int64(bits.TrailingZeros64(m)); x > 0 && x < rest {
					return x
				}
			}
		}
		if words == all {
			return -1
		}
	}
}

// reachable returns the bitset, of the given words, of the totals the
// groups of the buffers of s in mask m reach (exact below its length).
func reachable(s []int64, m uint64, words int) []uint64 {
	row := make([]uint64, words)
	row[0] = 1
	for i, x := range s {
		if m&(1<<i) != 0 {
			orShifted(row, row, x)
		}
	}
	return row
}

// twinsOf pairs, of the buffers e ending at a boundary and st starting
// there, each size that one buffer of each side has and no other buffer
// of either side: where a block lives on across a boundary its bytes end
// and start there in one buffer each, and a size of one buffer a side is
// unlikely to match by chance where sums of several may. It returns the
// twins and the buffers left of each side.
func twinsOf(in *instance, e, st []int32) (tw [][2]int32, restE, restSt []int32) {
	count := map[int64][2]int{}
	for side, ks := range [2][]int32{e, st} {
		for _, k := range ks {
			c := count[in.size[k]]
			c[side]++
			count[in.size[k]] = c
		}
	}
	at := map[int64]int32{}
	for _, k := range st {
		if count[in.size[k]] == [2]int{1, 1} {
			at[in.size[k]] = k
		} else {
			restSt = append(restSt, k)
		}
	}
	for _, k := range e {
		if count[in.size[k]] == [2]int{1, 1} {
			tw = append(tw, [2]int32{k, at[in.size[k]]})
		} else {
			restE = append(restE, k)
		}
	}
	return tw, restE, restSt
}

// orShifted sets dst |= src << x, over bitsets of one length; dst may be
// src.
func orShifted(dst, src []uint64, x int64) {
	ws, bs := int(x/64), uint(x%64)
	for w := len(dst) - 1; w >= ws; w-- {
		v := src[w-ws] << bs
		if bs > 0 && w-ws-1 >= 0 {
			v |= src[w-ws-1] >> (64 - bs)
		}
		dst[w] |= v
	}
}

// sumTable returns, for the buffers of s in mask m in order, the bitsets
// of the totals up to at least g that the groups of the first i of them
// reach (i = 0..).
func sumTable(s []int64, m uint64, g int64) [][]uint64 {
	row := make([]uint64, g/64+1)
	row[0] = 1
	rows := [][]uint64{row}
	for i, x := range s {
		if m&(1<<i) != 0 {
			next := slices.Clone(row)
			orShifted(next, row, x)
			rows = append(rows, next)
			row = next
		}
	}
	return rows
}

// pickSum returns a group of the buffers of s in mask m of total g, which
// the table rows (sumTable's) says some group reaches.
func pickSum(s []int64, m uint64, rows [][]uint64, g int64) uint64 {
	var idx []int
	for i := range s {
		if m&(1<<i) != 0 {
			idx = append(idx, i)
		}
	}
	var pick uint64
	for r := len(idx); r > 0 && g > 0; r-- {
		if rows[r-1][g/64]&(1<<(g%64)) != 0 {
			continue // reached without this one
		}
		pick |= 1 << idx[r-1]
		g -= s[idx[r-1]]
	}
	return pick
}

func maskSum(s []int64, m uint64) int64 {
	var t int64
	for i, x := range s {
		if m&(1<<i) != 0 {
			t += x
		}
	}
	return t
}

// classesOf groups bufs (a part's buffers) by find's root of their index
// in the part, listing the roots in the order their first buffer comes.
func classesOf(bufs []int32, find func(int32) int32) (map[int32][]int32, []int32) {
	classes := map[int32][]int32{}
	var roots []int32
	for i, k := range bufs {
		r := find(int32(i))
		if _, ok := classes[r]; !ok {
			roots = append(roots, r)
		}
		classes[r] = append(classes[r], k)
	}
	return classes, roots
}
