package exact

import (
	"cmp"
	"math/bits"
	"slices"
)

// Repair. A band whose buffers were paired wrongly at some boundary
// (groups whose totals agree by chance) has no packing apart, and its
// fillers churn; with the right pairs a band packs in about a node a
// buffer. So each band is given a cap (bandCap), and where some fail
// within theirs, repair tries other pairings at the boundaries of their
// groups: a group split in two, or two groups of one boundary paired
// again as two others (or joined), the smallest new groups first; then
// two such changes at different boundaries together. Bands that a
// pairing shares with one tried before are not packed again (the
// layout's cache).

// maxRepairAlts is the most other pairings of one boundary repair
// tries; the first maxRepairPairs of them are also tried two at a time.
const (
	maxRepairAlts  = 256
	maxRepairPairs = 24
)

// maxAltSubs is the most groups each side of a pair of groups is
// searched for (subsets, smallest first); maxAltsPer the most new pairs
// kept for one group or pair of groups.
const (
	maxAltSubs = 4096
	maxAltsPer = 64
)

// alt is another pairing of boundary bi of a layout; cost is the
// buffers of its smallest new group.
type alt struct {
	bi    int
	pairs [][2]uint64
	cost  int
}

// repair looks for a pairing whose bands all pack within their caps:
// first the wide boundaries paired by the classes (packInert), then one
// boundary or two changed where the bands fails failed.
func (b *banded) repair(fails []int) outcome {
	l, p := b.lay, b.p
	bad := map[int32]bool{}
	for _, i := range fails {
		for _, k := range b.bands[i].ks {
			bad[k] = true
		}
	}
	alts := l.alternatives(func(k int32) bool { return bad[k] })
	if len(alts) > maxRepairAlts {
		alts = alts[:maxRepairAlts]
	}
	hint := b.rect
	try := func(as ...alt) outcome {
		nl := l.with(as...)
		// Making the bands costs about a node for 8 buffers.
		for range len(l.pt.bufs)/8 + 1 {
			if !p.node() {
				return aborted
			}
		}
		nb := nl.build(p, &hint)
		if nb == nil {
			return infeasible
		}
		res, _ := nb.packBands(capLow)
		if res != found {
			return res
		}
		for _, k := range l.pt.bufs {
			b.sol[k] = nb.sol[k]
		}
		return found
	}
	stopped := func() bool { return p.ended() || p.stop > 0 && p.count > p.stop }
	if b.packInert(capLow, capHigh) == found {
		return found
	}
	if stopped() {
		return aborted
	}
	for _, a := range alts {
		if try(a) == found {
			return found
		}
		if stopped() {
			return aborted
		}
	}
	for i := range min(len(alts), maxRepairPairs) {
		for j := i + 1; j < min(len(alts), maxRepairPairs); j++ {
			if alts[i].bi == alts[j].bi {
				continue
			}
			if try(alts[i], alts[j]) == found {
				return found
			}
			if stopped() {
				return aborted
			}
		}
	}
	return aborted
}

// packInert packs b's part by the bands of its layout with its wide
// boundaries paired by the classes (inertPaired), each band within its
// cap at each of mults in turn: found, or aborted where it has none or
// some band failed. The engine is made once (b.inert), so that bands
// that failed at a cap are not packed again at it.
func (b *banded) packInert(mults ...int64) outcome {
	l, p := b.lay, b.p
	if l.inert {
		return aborted // paired so already
	}
	if b.inert == nil {
		il := l.inertPaired(p)
		if il == nil {
			b.inert = b // none: b itself marks it
			return aborted
		}
		il.inert = true
		b.inert = il.build(p, nil)
		if b.inert == nil {
			b.inert = b
		}
	}
	nb := b.inert
	if nb == b {
		return aborted
	}
	for _, m := range mults {
		res, fails := nb.packBands(m)
		if res == found {
			for _, k := range l.pt.bufs {
				b.sol[k] = nb.sol[k]
			}
			return found
		}
		if fails == nil {
			return res
		}
	}
	return aborted
}

// alternatives lists the other pairings of the boundaries where a group
// of the bands fails lies, smallest new group first.
func (l *layout) alternatives(bad func(k int32) bool) []alt {
	var alts []alt
	seen := map[string]bool{}
	add := func(bi int, pairs [][2]uint64, cost int) {
		slices.SortFunc(pairs, func(p, q [2]uint64) int {
			return cmp.Or(cmp.Compare(p[0], q[0]), cmp.Compare(p[1], q[1]))
		})
		key := make([]byte, 0, 8+16*len(pairs))
		key = append(key, byte(bi), byte(bi>>8), byte(bi>>16), byte(bi>>24))
		for _, pr := range pairs {
			for _, m := range pr {
				for x := range 8 {
					key = append(key, byte(m>>(8*x)))
				}
			}
		}
		if !seen[string(key)] {
			seen[string(key)] = true
			alts = append(alts, alt{bi, pairs, cost})
		}
	}
	for bi, bd := range l.bds {
		if len(bd.e) > 64 || len(bd.st) > 64 {
			continue
		}
		a, bs := make([]int64, len(bd.e)), make([]int64, len(bd.st))
		for i, k := range bd.e {
			a[i] = l.in.size[k]
		}
		for i, k := range bd.st {
			bs[i] = l.in.size[k]
		}
		pairs := bd.pairs
		if pairs == nil {
			pairs = [][2]uint64{{1<<len(a) - 1, 1<<len(bs) - 1}}
		}
		// with returns pairs less groups gi and hi (-1: none), plus add.
		with := func(gi, hi int, add ...[2]uint64) [][2]uint64 {
			var out [][2]uint64
			for x, pr := range pairs {
				if x != gi && x != hi {
					out = append(out, pr)
				}
			}
			return append(out, add...)
		}
		for gi, g := range pairs {
			if g[0] == 0 || !bad(bd.e[bits.TrailingZeros64(g[0])]) {
				continue
			}
			for _, xy := range equalSubs(a, bs, g[0], g[1]) {
				add(bi, with(gi, -1, xy, [2]uint64{g[0] &^ xy[0], g[1] &^ xy[1]}), splitCost(g, xy))
			}
			for hi, h := range pairs {
				if hi == gi {
					continue
				}
				u := [2]uint64{g[0] | h[0], g[1] | h[1]}
				for _, xy := range equalSubs(a, bs, u[0], u[1]) {
					if xy == g || xy == h {
						continue
					}
					add(bi, with(gi, hi, xy, [2]uint64{u[0] &^ xy[0], u[1] &^ xy[1]}), splitCost(u, xy))
				}
				add(bi, with(gi, hi, u), bits.OnesCount64(u[0])+bits.OnesCount64(u[1]))
			}
		}
	}
	slices.SortStableFunc(alts, func(x, y alt) int { return cmp.Compare(x.cost, y.cost) })
	return alts
}

// splitCost is the buffers of the smaller of the two groups that xy
// splits u into.
func splitCost(u, xy [2]uint64) int {
	n := bits.OnesCount64(xy[0]) + bits.OnesCount64(xy[1])
	return min(n, bits.OnesCount64(u[0])+bits.OnesCount64(u[1])-n)
}

// equalSubs returns groups (x, y), x of the ending buffers in ma and y
// of the starting ones in mb, of equal totals, which split (ma, mb) into
// two pairs of groups: each written with the lowest buffer of ma, the
// smallest groups first, at most maxAltsPer. Where ma has at most
// maxFullSide buffers every group of it is looked at (the first
// maxAltSubs that match kept), else groups of up to as many buffers a
// side as keep each side's list within maxAltSubs.
func equalSubs(a, b []int64, ma, mb uint64) [][2]uint64 {
	if bits.OnesCount64(ma) < 2 && bits.OnesCount64(mb) < 2 {
		return nil
	}
	ta, tb := maskSum(a, ma), maskSum(b, mb)
	if ta != tb {
		return nil
	}
	low := ma & -ma
	seen := map[[2]uint64]bool{}
	var out [][2]uint64
	emit := func(x, y uint64) {
		xy := [2]uint64{x, y}
		if x&low == 0 {
			xy = [2]uint64{ma &^ x, mb &^ y}
		}
		if xy[0] == 0 || xy[1] == 0 || xy[0] == ma && xy[1] == mb || seen[xy] {
			return
		}
		seen[xy] = true
		out = append(out, xy)
	}
	if bits.OnesCount64(ma) <= maxFullSide {
		// Every group of ma, its total made from a smaller one's, against
		// the small groups of mb by total: a split of many buffers on
		// both sides (two groups whose sums agreed by chance, paired
		// again) is found too.
		byY := map[int64][]uint64{}
		for _, y := range smallSubs(mb) {
			byY[maskSum(b, y)] = append(byY[maskSum(b, y)], y)
		}
		subs, sums := []uint64{0}, []int64{0}
		for x := ma; x != 0; x &= x - 1 {
			bit, i := x&-x, bits.TrailingZeros64(x)
			for j := range len(subs) {
				subs, sums = append(subs, subs[j]|bit), append(sums, sums[j]+a[i])
			}
		}
	full:
		for j, x := range subs {
			if x == 0 || x == ma {
				continue
			}
			for _, y := range byY[sums[j]] {
				if len(out) == maxAltSubs {
					break full
				}
				emit(x, y)
			}
		}
	} else {
		bySum := map[int64][]uint64{}
		for _, x := range smallSubs(ma) {
			bySum[maskSum(a, x)] = append(bySum[maskSum(a, x)], x)
		}
		for _, y := range smallSubs(mb) {
			for _, x := range bySum[maskSum(b, y)] {
				emit(x, y)
			}
		}
	}
	slices.SortFunc(out, func(p, q [2]uint64) int {
		return cmp.Or(cmp.Compare(splitCost([2]uint64{ma, mb}, p), splitCost([2]uint64{ma, mb}, q)),
			cmp.Compare(p[0], q[0]), cmp.Compare(p[1], q[1]))
	})
	if len(out) > maxAltsPer {
		out = out[:maxAltsPer]
	}
	return out
}

// maxFullSide is the most ending buffers of a pair of groups whose
// every subset equalSubs looks at (2^14: four times maxAltSubs).
const maxFullSide = 14

// smallSubs lists the non-empty proper subsets of m of at most r buffers,
// r the largest that keeps them within maxAltSubs.
func smallSubs(m uint64) []uint64 {
	n := bits.OnesCount64(m)
	var idx []uint64
	for x := m; x != 0; x &= x - 1 {
		idx = append(idx, x&-x)
	}
	// r: the most buffers a subset may have.
	r, count := 0, 0
	for c := 1; r < n; r++ {
		c = c * (n - r) / (r + 1) // C(n, r+1)
		if count+c > maxAltSubs {
			break
		}
		count += c
	}
	var out []uint64
	var rec func(from int, x uint64, k int)
	rec = func(from int, x uint64, k int) {
		if x != 0 && x != m {
			out = append(out, x)
		}
		if k == r {
			return
		}
		for i := from; i < n; i++ {
			rec(i+1, x|idx[i], k+1)
		}
	}
	rec(0, 0, 0)
	return out
}

// splitting packs, on a pace that repairs, a band (or, with no filler
// f, a part whose fillers run apart) that its pairing leaves one band
// with no rectangles: by its filler within the band's
// low cap, then by the bands of other pairings that split it
// (layout.split), each within repairCap, then by its filler within the
// band's high cap, and failing those by its filler with no cap of its
// own.
type splitting struct {
	f     packer
	l     *layout
	p     *pace
	tried bool    // split was called
	b     *banded // what split found
	// other, where set, is the splitter of the same part sweeping the
	// other way, whose split's pairings this one takes where it has
	// looked already.
	other *splitting
	sol   []int64
}

func (s *splitting) packed() []int64  { return s.sol }
func (s *splitting) offsets() []int64 { return s.sol }
func (s *splitting) pacer() *pace     { return s.p }

func (s *splitting) solve(_ *part, c, limit int64) outcome {
	s.p.limit, s.p.count, s.p.quit = limit, 0, false
	return s.pack(c)
}

func (s *splitting) pack(c int64) outcome {
	p := s.p
	n := len(s.l.pt.bufs)
	outer := p.stop
	stopped := func() bool { return p.ended() || outer > 0 && p.count > outer }
	filled := func(mult int64) bool {
		if s.f == nil {
			return false
		}
		if p.within(bandCap(n, mult), func() bool { return s.f.pack(c) == found }) {
			s.sol = s.f.packed()
			return true
		}
		return false
	}
	if filled(capLow) {
		return found
	}
	if stopped() {
		return aborted
	}
	if !s.tried {
		if o := s.other; (o == nil || !o.tried) && s.f == nil {
			// A whole part: the other runs have their first steps (8
			// nodes a buffer) before split's search, which costs time but
			// no nodes; a part they pack soon never needs it.
			for p.count < 8*int64(n) {
				if !p.node() {
					return aborted
				}
			}
		}
		s.tried = true
		if o := s.other; o != nil && o.tried {
			// The pairings that split it are the same both ways.
			s.b = o.b.likeAll(s.l.rev, p)
		} else {
			s.b = s.l.split(p)
		}
	}
	if s.b != nil {
		// Each pairing within repairCap, all of them within four times it.
		ok := p.within(4*repairCap(n), func() bool {
			for _, x := range append([]*banded{s.b}, s.b.next...) {
				if p.within(repairCap(n), func() bool { return x.pack(c) == found }) {
					s.sol = x.sol
					return true
				}
				if p.ended() || p.count > p.stop {
					return false
				}
			}
			return false
		})
		if ok {
			return found
		}
		if stopped() {
			return aborted
		}
	}
	if filled(capHigh) {
		return found
	}
	if stopped() {
		return aborted
	}
	if s.f == nil {
		return aborted
	}
	res := s.f.pack(c)
	s.sol = s.f.packed()
	return res
}

// maxSplits is the most pairings that split a part split keeps;
// maxSplitPairs how many of the alternatives it tries two at a time;
// maxSplitWork bounds its steps (part buffers times pairings and
// rectangles tried).
const (
	maxSplits     = 64
	maxSplitPairs = 64
	maxSplitWork  = 1 << 22
)

// split looks, in a part whose pairing leaves it one band with no
// rectangles, for other pairings that split it into bands or
// rectangles: first its boundaries paired again by the classes of the
// others (rebalanced), then other pairings of one boundary
// (alternatives), then of two, and failing all of those one boundary
// changed with the rest paired by the classes at a cut (mended); where
// the pairing of its wide boundaries by the classes (inertPaired) is one
// band too, the pairings that split that go before all of these. It
// returns the first of them, the others to try after it (banded.next),
// or nil where none does.
func (l *layout) split(p *pace) *banded {
	n := len(l.pt.bufs)
	alts := l.alternatives(func(int32) bool { return true })
	var cands []*banded
	// The pairings by the classes of the other boundaries have work of
	// their own: the changes of one or two boundaries keep theirs.
	rwork := int64(0)
	if nl := l.rebalanced([2]int32{-1, -1}, p.b.pairsOf, &rwork); nl != nil {
		nl.bladesOnly = true
		if nb := nl.buildWithin(p, nil, &rwork, maxSplitWork); nb != nil {
			cands = append(cands, nb)
		}
	}
	if len(cands) == 0 {
		// Rectangles: each pair of boundaries where a pinwheel's blades
		// would end and start, the others paired again by the classes
		// the rest make.
		for _, cut := range slices.Concat(l.turnPairs(), l.bladePairs(&rwork)) {
			if rwork > maxSplitWork || p.b.spent() {
				break
			}
			nl := l.rebalanced(cut, p.b.pairsOf, &rwork)
			if nl == nil {
				continue
			}
			if nb := nl.build(p, &cut); nb != nil {
				cands = append(cands, nb)
				break
			}
		}
	}
	rebalanced := len(cands)
	work := int64(0)
	// try makes the bands of l changed by as, else its rectangles.
	try := func(as ...alt) {
		work += int64(n)
		nl := l.with(as...)
		nl.bladesOnly = true
		if nb := nl.buildWithin(p, nil, &work, maxSplitWork); nb != nil {
			cands = append(cands, nb)
		}
	}
	for _, a := range alts {
		if work > maxSplitWork || len(cands) == maxSplits || p.b.spent() {
			break
		}
		try(a)
	}
	if len(cands) == rebalanced {
		// Two boundaries changed together.
		m := min(len(alts), maxSplitPairs)
		for i := 0; i < m && len(cands) < maxSplits; i++ {
			for j := i + 1; j < m && len(cands) < maxSplits; j++ {
				if work > maxSplitWork || p.b.spent() {
					break
				}
				if alts[i].bi != alts[j].bi {
					try(alts[i], alts[j])
				}
			}
		}
	}
	if len(cands) == 0 {
		cands = l.mended(p, alts)
	}
	if !l.inert {
		// Where the pairing by the classes (inertPaired) leaves the part
		// one band too, the pairings that split that come first.
		if il := l.inertPaired(p); il != nil {
			il.inert = true
			if il.build(p, nil) == nil {
				if sb := il.split(p); sb != nil {
					cands = slices.Concat([]*banded{sb}, sb.next, cands)
					sb.next = nil
				}
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	cands[0].next = cands[1:]
	return cands[0]
}

// maxMendWork bounds mended's steps (the buffers rebalanced joins, and
// the part's buffers a try).
const maxMendWork = 1 << 23

// mended is split's last resort: at each pair of boundaries where a
// pinwheel's blades would end and start (turnPairs), one boundary
// changed (its twins put back with the rest of it, else alts: a group
// split, or two groups paired again, or joined), then the
// others paired by the classes the rest make (rebalanced), for
// rectangles at that cut. A wrong pair at one boundary (sums that agree
// by chance) leaves the classes that pair the others wrong too, so that
// neither the change alone nor rebalanced alone finds them. The first
// found, or nil.
func (l *layout) mended(p *pace, alts []alt) []*banded {
	n := int64(len(l.pt.bufs))
	work := int64(0)
	// Exchanges first (as many groups, other members: the sums that
	// agree by chance), then splits, then joins.
	kind := func(a alt) int {
		switch d := len(a.pairs) - max(len(l.bds[a.bi].pairs), 1); {
		case d == 0:
			return 0
		case d > 0:
			return 1
		}
		return 2
	}
	cuts := l.turnPairs()
	// try pairs the boundaries of ml other than its cut's by the classes
	// of the rest, and looks for rectangles at the cut; stop: the work
	// or the budget is spent.
	try := func(ml *layout, cut [2]int32) (nb *banded, stop bool) {
		if work > maxMendWork || p.b.spent() {
			return nil, true
		}
		work += n
		if nl := ml.rebalanced(cut, p.b.pairsOf, &work); nl != nil {
			nb = nl.build(p, &cut)
		}
		return nb, false
	}
	// Twins first (one buffer a side of a size no other has, paired
	// apart from the rest of their boundary: sizes near the least that
	// meet by chance), each put back with the rest.
	for _, cut := range cuts {
		for bi, bd := range l.bds {
			if len(bd.e) != 1 || len(bd.st) != 1 || bd.s == cut[0] || bd.s == cut[1] {
				continue
			}
			ml := l.untwinned(bi, p)
			if ml == nil {
				continue
			}
			nb, stop := try(ml, cut)
			if nb != nil {
				return []*banded{nb}
			}
			if stop {
				return nil
			}
		}
	}
	for tier := range 3 {
		for _, cut := range cuts {
			for _, a := range alts {
				if s := l.bds[a.bi].s; kind(a) != tier || s == cut[0] || s == cut[1] {
					continue // rebalanced pairs the cut boundaries again
				}
				nb, stop := try(l.with(a), cut)
				if nb != nil {
					return []*banded{nb}
				}
				if stop {
					return nil
				}
			}
		}
	}
	return nil
}

// with returns l with the pairings as of alternatives as.
func (l *layout) with(as ...alt) *layout {
	nl := *l
	nl.bds = slices.Clone(l.bds)
	for _, a := range as {
		nl.bds[a.bi].pairs = a.pairs
	}
	return &nl
}

// untwinned returns l with the twins of boundary bi (one buffer a side,
// paired apart: twinsOf) put back with the rest of their boundary and
// that paired again by size, or nil where bi's boundary has no rest.
func (l *layout) untwinned(bi int, p *pace) *layout {
	tb := l.bds[bi]
	for si, sb := range l.bds {
		if si == bi || sb.s != tb.s || len(sb.e) == 1 && len(sb.st) == 1 {
			continue // another twin
		}
		nb := boundary{s: sb.s, e: append(slices.Clone(sb.e), tb.e...), st: append(slices.Clone(sb.st), tb.st...)}
		if len(nb.e) <= 64 && len(nb.st) <= 64 {
			a, b := make([]int64, len(nb.e)), make([]int64, len(nb.st))
			for i, k := range nb.e {
				a[i] = l.in.size[k]
			}
			for i, k := range nb.st {
				b[i] = l.in.size[k]
			}
			nb.pairs = p.b.pairsOf(a, b)
		}
		nl := l.with()
		nl.bds[si] = nb
		nl.bds = slices.Delete(nl.bds, bi, bi+1)
		return nl
	}
	return nil
}

// rebalanced returns l with boundaries paired again where that splits
// the part into more classes, the groups of the boundaries cut left
// unjoined (-1: none), or nil where none does. Each boundary in turn is
// paired by the classes the others make: every class must hold one
// load over the part (or over its own lifetime, between the boundaries
// cut), so at the boundary the bytes its buffers end less those they
// start (its net) must be made up by classes of the opposite net. The
// classes of nets of one total (pairGroups, over the nets rather than
// the sizes) are paired, classes of no net left alone: a pairing of
// sizes that agree by chance, wrong at one boundary, is then told by
// the classes the rest of the part makes. The boundaries cut are then
// paired so too, by the classes of all the others, where that changes
// them: their groups are never joined, but rectsOf joins again those
// that hold a class whose load changes there, and a rectangle that
// lives across a cut boundary (a pinwheel's blade past the end of the
// centre) has holes of its own there, which a pairing by sizes may
// group with buffers of the rectangles that end or start there (their
// classes then go bad, and joining them again joins the rectangles). It
// adds to work the buffers it joins.
func (l *layout) rebalanced(cut [2]int32, pair func(a, b []int64) [][2]uint64, work *int64) *layout {
	n := len(l.pt.bufs)
	nl := l.with()
	gs := make([][][]int32, len(nl.bds))
	for bi, bd := range nl.bds {
		if bd.s != cut[0] && bd.s != cut[1] {
			gs[bi] = bdGroups(bd)
		}
	}
	// Each boundary's pairing by the classes of all the others, found
	// for all of them at once: the others' groups joined by halves, the
	// joins undone on the way back.
	alts := make([][][2]uint64, len(nl.bds))
	// cutLast: the leaves pair the boundaries cut (whose groups are
	// never joined), not the others.
	cutLast := false
	u := newUndoForest(n)
	add := func(lo, hi int) {
		for _, g := range gs[lo:hi] {
			for _, g := range g {
				*work += int64(len(g))
				for _, k := range g[1:] {
					u.union(l.local[k], l.local[g[0]])
				}
			}
		}
	}
	var solve func(lo, hi, from int)
	solve = func(lo, hi, from int) {
		if hi <= from {
			add(lo, hi)
			return
		}
		if hi-lo == 1 {
			bd := nl.bds[lo]
			alts[lo] = nil
			if (gs[lo] != nil) != cutLast && len(bd.e) <= 64 && len(bd.st) <= 64 && len(bd.e) > 1 && len(bd.st) > 1 {
				alts[lo] = netPairs(l, bd, u.find, pair)
			}
			return
		}
		mid := (lo + hi) / 2
		h := len(u.hist)
		add(mid, hi)
		solve(lo, mid, from)
		u.undo(h)
		add(lo, mid)
		solve(mid, hi, from)
		u.undo(h)
	}
	parent := make(forest, n)
	classes := func() int {
		*work += int64(n)
		parent.reset()
		c := n
		for _, g := range gs {
			for _, g := range g {
				for _, k := range g[1:] {
					a, b := parent.find(l.local[k]), parent.find(l.local[g[0]])
					if a != b {
						parent[a] = b
						c--
					}
				}
			}
		}
		return c
	}
	base := classes()
	changed := false
	// Boundaries in order, each paired by the others as they stand: once
	// one changes, those after it are paired again.
	for from := 0; from < len(nl.bds); {
		solve(0, len(nl.bds), from)
		next := len(nl.bds)
		for bi := from; bi < len(nl.bds) && next == len(nl.bds); bi++ {
			pairs := alts[bi]
			if pairs == nil || slices.Equal(pairs, nl.bds[bi].pairs) || gs[bi] == nil {
				continue
			}
			old, oldPairs := gs[bi], nl.bds[bi].pairs
			nl.bds[bi].pairs = pairs
			gs[bi] = bdGroups(nl.bds[bi])
			if c := classes(); c > base {
				base, changed, next = c, true, bi+1
			} else {
				nl.bds[bi].pairs, gs[bi] = oldPairs, old
			}
		}
		from = next
	}
	if cut[0] >= 0 {
		// The boundaries cut last, by the classes all the others make.
		cutLast = true
		solve(0, len(nl.bds), 0)
		for bi, bd := range nl.bds {
			if gs[bi] == nil && alts[bi] != nil && !slices.Equal(alts[bi], bd.pairs) {
				nl.bds[bi].pairs = alts[bi]
				changed = true
			}
		}
	}
	if !changed {
		return nil
	}
	return nl
}

// undoForest is a union-find whose unions can be undone, latest first.
// With spans (newSpanForest) each root also holds the first and last
// section of its class, and comps counts the classes.
type undoForest struct {
	parent, size []int32
	hist         []int32 // the roots joined under others, in order
	lo, hi       []int32
	old          [][2]int32 // per union: the span its root had before
	comps        int
}

func newUndoForest(n int) *undoForest {
	u := &undoForest{parent: make([]int32, n), size: make([]int32, n), comps: n}
	for i := range u.parent {
		u.parent[i], u.size[i] = int32(i), 1
	}
	return u
}

// newSpanForest is newUndoForest whose class of buffer i spans sections
// lo[i] to hi[i] (taken, not copied).
func newSpanForest(lo, hi []int32) *undoForest {
	u := newUndoForest(len(lo))
	u.lo, u.hi = lo, hi
	return u
}

func (u *undoForest) find(x int32) int32 {
	for u.parent[x] != x {
		x = u.parent[x]
	}
	return x
}

func (u *undoForest) union(a, b int32) {
	a, b = u.find(a), u.find(b)
	if a == b {
		return
	}
	if u.size[a] > u.size[b] {
		a, b = b, a
	}
	u.parent[a] = b
	u.size[b] += u.size[a]
	u.hist = append(u.hist, a)
	u.comps--
	if u.lo != nil {
		u.old = append(u.old, [2]int32{u.lo[b], u.hi[b]})
		u.lo[b], u.hi[b] = min(u.lo[b], u.lo[a]), max(u.hi[b], u.hi[a])
	}
}

// undo undoes the unions after the first h.
func (u *undoForest) undo(h int) {
	for len(u.hist) > h {
		a := u.hist[len(u.hist)-1]
		u.hist = u.hist[:len(u.hist)-1]
		b := u.parent[a]
		u.size[b] -= u.size[a]
		u.parent[a] = a
		u.comps++
		if u.lo != nil {
			o := u.old[len(u.old)-1]
			u.old = u.old[:len(u.old)-1]
			u.lo[b], u.hi[b] = o[0], o[1]
		}
	}
}

// bdGroups lists the groups of bd, each as its buffers.
func bdGroups(bd boundary) [][]int32 {
	if bd.pairs == nil {
		return [][]int32{append(slices.Clone(bd.e), bd.st...)}
	}
	var gs [][]int32
	for _, pr := range bd.pairs {
		gs = append(gs, pairBufs(bd, pr))
	}
	return gs
}

// netPairs pairs the buffers of bd by the classes of find (rebalanced):
// nil where they hold no class of a net.
func netPairs(l *layout, bd boundary, find func(int32) int32, pair func(a, b []int64) [][2]uint64) [][2]uint64 {
	type class struct {
		net  int64
		mask [2]uint64
	}
	at := map[int32]int{}
	var cs []class
	for side, ks := range [2][]int32{bd.e, bd.st} {
		for i, k := range ks {
			r := find(l.local[k])
			x, ok := at[r]
			if !ok {
				x = len(cs)
				at[r] = x
				cs = append(cs, class{})
			}
			if side == 0 {
				cs[x].net += l.in.size[k]
			} else {
				cs[x].net -= l.in.size[k]
			}
			cs[x].mask[side] |= 1 << i
		}
	}
	var pairs [][2]uint64
	var pos, neg []int64
	var pi, ni []int
	for x, c := range cs {
		switch {
		case c.net == 0:
			pairs = append(pairs, c.mask)
		case c.net > 0:
			pos, pi = append(pos, c.net), append(pi, x)
		default:
			neg, ni = append(neg, -c.net), append(ni, x)
		}
	}
	if len(pos) == 0 {
		return pairs
	}
	if len(pos) > 64 || len(neg) > 64 {
		return nil
	}
	pp := pair(pos, neg)
	if pp == nil {
		return nil
	}
	for _, pr := range pp {
		var m [2]uint64
		for side, idx := range [2][]int{pi, ni} {
			for j, x := range idx {
				if pr[side]&(1<<j) != 0 {
					m[0] |= cs[x].mask[0]
					m[1] |= cs[x].mask[1]
				}
			}
		}
		pairs = append(pairs, m)
	}
	return pairs
}

// latestEnds returns, by boundary s of the part, the latest end of its
// buffers that start before s: no buffer lives across both s1 and s2
// where s2 >= latestEnds()[s1].
func (l *layout) latestEnds() []int32 {
	pt, in := l.pt, l.in
	ns := pt.secHi - pt.secLo
	maxHi := make([]int32, ns+1)
	for _, k := range pt.bufs {
		maxHi[in.secLo[k]-pt.secLo+1] = max(maxHi[in.secLo[k]-pt.secLo+1], in.secHi[k]-pt.secLo)
	}
	for s := int32(1); s <= ns; s++ {
		maxHi[s] = max(maxHi[s], maxHi[s-1])
	}
	return maxHi
}

// maxTurns is how many boundaries, those where most bytes end and
// start, turnPairs pairs.
const maxTurns = 8

// turnPairs lists the pairs of boundaries (s1 < s2) that no buffer
// lives across both among the maxTurns where the most bytes end (and
// start), the most first: a pinwheel's first blade ends whole at s1 and
// its last starts whole at s2, and together they are more than the
// part's height (the centre between them has some), where the pairs
// its groups leave (bladePairs) may be wrong.
func (l *layout) turnPairs() [][2]int32 {
	pt, in := l.pt, l.in
	ns := pt.secHi - pt.secLo
	turn := make([]int64, ns+1)
	for _, k := range pt.bufs {
		turn[in.secHi[k]-pt.secLo] += in.size[k]
	}
	maxHi := l.latestEnds()
	var top []int32
	for s := int32(1); s < ns; s++ {
		if turn[s] > 0 {
			top = append(top, s)
		}
	}
	slices.SortStableFunc(top, func(a, b int32) int { return cmp.Compare(turn[b], turn[a]) })
	top = top[:min(len(top), maxTurns)]
	var out [][2]int32
	for _, a := range top {
		for _, b := range top {
			if a < b && b >= maxHi[a] && turn[a]+turn[b] > l.c {
				out = append(out, [2]int32{a, b})
			}
		}
	}
	slices.SortStableFunc(out, func(x, y [2]int32) int {
		return cmp.Compare(turn[y[0]]+turn[y[1]], turn[x[0]]+turn[x[1]])
	})
	return out
}

// bladePairs lists the pairs of boundaries (s1 < s2) that no buffer
// lives across both, where, with the groups of each alone left unjoined,
// some class ends at s1 having started with the part and some class
// starts at s2 and ends with it: where a pinwheel's first and last
// blades would end and start (rectsOf's first tries); those where also
// a class starts at s1 and ends with the part, and one ends at s2
// having started with it, first.
func (l *layout) bladePairs(work *int64) [][2]int32 {
	pt, in := l.pt, l.in
	n := len(pt.bufs)
	ns := pt.secHi - pt.secLo
	parent := make(forest, n)
	gs := l.groups()
	lo, hi := make([]int32, n), make([]int32, n)
	first, last := make([]bool, ns+1), make([]bool, ns+1)
	seen := make([]bool, ns+1)
	for _, bd := range l.bds {
		s := bd.s
		if seen[s] {
			continue
		}
		seen[s] = true
		*work += int64(n)
		parent.reset()
		for _, g := range gs {
			if g.s == s {
				continue
			}
			for _, k := range g.bufs[1:] {
				parent[parent.find(l.local[k])] = parent.find(l.local[g.bufs[0]])
			}
		}
		for i := range n {
			lo[i], hi[i] = ns, 0
		}
		for i, k := range pt.bufs {
			r := parent.find(int32(i))
			lo[r], hi[r] = min(lo[r], in.secLo[k]-pt.secLo), max(hi[r], in.secHi[k]-pt.secLo)
		}
		for i := range n {
			first[s] = first[s] || lo[i] == 0 && hi[i] == s
			last[s] = last[s] || lo[i] == s && hi[i] == ns
		}
	}
	maxHi := l.latestEnds()
	// Those where each boundary alone leaves both a class from the
	// part's start and one to its end (in a pinwheel, at s1 the first
	// blade ends and the one above the centre starts, at s2 the one
	// below it ends and the last starts) first.
	var byFlags [3][][2]int32
	for s1 := int32(1); s1 < ns; s1++ {
		if !first[s1] {
			continue
		}
		for s2 := max(s1+1, maxHi[s1]); s2 < ns; s2++ {
			if !last[s2] {
				continue
			}
			x := 2
			if last[s1] {
				x--
			}
			if first[s2] {
				x--
			}
			byFlags[x] = append(byFlags[x], [2]int32{s1, s2})
		}
	}
	return slices.Concat(byFlags[:]...)
}

// Wide boundaries. A boundary with more than 64 buffers a side after
// its twins is one group (the masks' width), and so, often, is the
// part. Sums there are dense: most totals are reached by groups of a
// few buffers of each side, so pairing by totals alone (pairLarge's
// rule, on sides of any length) pairs groups that agree by chance.
// inertPaired pairs them instead by the classes the other boundaries
// make, where the chance left does no harm: a class that lives from the
// part's start up to the boundary, or from it to the part's end, and
// meets no other boundary still to be paired, is inert: a rectangle of
// its own whose place no other boundary fixes, so one inert group of a
// total may stand for another of that total. Each class that lives on
// elsewhere takes inert classes of the other side of its total (found
// by bitsets of the totals they reach, as pairLarge's), after the
// buffers of its lifetimes whose each has one of its size on the other
// side are paired with them; inert classes
// of both sides are paired by the least totals both reach; the rest is
// one group. Every wide boundary is paired so, each by the others'
// classes with the wide ones left unjoined, and each group is a
// boundary of its own.

// maxWidePairs is the most groups of inert classes of both sides that
// inertGroups pairs by their least common totals.
const maxWidePairs = 64

// maxInertWords bounds the bitsets (64-bit words) in which inertGroups
// looks for a group of a total.
const maxInertWords = 1 << 12

// wide says whether bd is one group for want of masks wide enough: more
// than 64 buffers on a side, and more than one on each.
func (bd boundary) wide() bool {
	return bd.pairs == nil && (len(bd.e) > 64 || len(bd.st) > 64) && len(bd.e) > 1 && len(bd.st) > 1
}

// inertPaired returns l with each wide boundary, its twins put back
// (twins of sizes near the least meet by chance), paired by
// inertGroups (one that does not split keeps its twins apart, as it
// was), or nil where no wide boundary splits.
func (l *layout) inertPaired(p *pace) *layout {
	at := map[int32]int{} // wide boundary by section
	for bi, bd := range l.bds {
		if bd.wide() {
			at[bd.s] = bi
		}
	}
	if len(at) == 0 {
		return nil
	}
	nl := l.with()
	nl.bds = nil
	merged := map[int32]*boundary{}
	orig := map[int32][]boundary{} // the wide boundaries and their twins
	for bi, bd := range l.bds {
		wi, ok := at[bd.s]
		if ok && (bi == wi || len(bd.e) == 1 && len(bd.st) == 1) {
			orig[bd.s] = append(orig[bd.s], bd)
		}
		switch {
		case !ok:
			nl.bds = append(nl.bds, bd)
		case bi == wi:
			if m := merged[bd.s]; m != nil {
				m.e, m.st = append(m.e, bd.e...), append(m.st, bd.st...)
				continue
			}
			merged[bd.s] = &boundary{s: bd.s, e: slices.Clone(bd.e), st: slices.Clone(bd.st)}
		case len(bd.e) == 1 && len(bd.st) == 1:
			m := merged[bd.s]
			if m == nil {
				m = &boundary{s: bd.s}
				merged[bd.s] = m
			}
			m.e, m.st = append(m.e, bd.e...), append(m.st, bd.st...)
		default:
			nl.bds = append(nl.bds, bd)
		}
	}
	first := len(nl.bds)
	for _, bd := range l.bds {
		if m := merged[bd.s]; m != nil {
			// In the part's order, as bandsOf lists them.
			for _, ks := range [2][]int32{m.e, m.st} {
				slices.SortFunc(ks, func(a, b int32) int { return cmp.Compare(l.local[a], l.local[b]) })
			}
			nl.bds = append(nl.bds, *m)
			delete(merged, bd.s)
		}
	}
	groupsOf := func(bj int) ([][]int32, bool) {
		if bj >= first {
			return nil, false
		}
		return bdGroups(nl.bds[bj]), true
	}
	var out []boundary
	split := false
	for bi := first; bi < len(nl.bds); bi++ {
		bd := nl.bds[bi]
		gs := nl.inertGroups(bi, groupsOf)
		if len(gs) < 2 {
			out = append(out, orig[bd.s]...) // as they were
			continue
		}
		split = true
		for _, g := range gs {
			gb := boundary{s: bd.s, e: g[0], st: g[1]}
			if len(g[0]) <= 64 && len(g[1]) <= 64 {
				a, b := make([]int64, len(g[0])), make([]int64, len(g[1]))
				for i, k := range g[0] {
					a[i] = l.in.size[k]
				}
				for i, k := range g[1] {
					b[i] = l.in.size[k]
				}
				gb.pairs = p.b.pairsOf(a, b)
			}
			out = append(out, gb)
		}
	}
	if !split {
		return nil
	}
	nl.bds = append(nl.bds[:first], out...)
	return nl
}

// inertGroups pairs the buffers of boundary bi of l, as lists of its
// ending and starting buffers, by the classes of the groups of the
// other boundaries (groupsOf: false for a boundary left unjoined).
func (l *layout) inertGroups(bi int, groupsOf func(bj int) ([][]int32, bool)) [][2][]int32 {
	in, pt := l.in, l.pt
	n := len(pt.bufs)
	ns := pt.secHi - pt.secLo
	bd := l.bds[bi]
	parent := make(forest, n)
	parent.reset()
	open := map[int32]bool{} // sections of boundaries left unjoined
	for bj, ob := range l.bds {
		if bj == bi {
			continue
		}
		gs, ok := groupsOf(bj)
		if !ok {
			if ob.s != bd.s {
				open[ob.s] = true
			}
			continue
		}
		for _, g := range gs {
			for _, k := range g[1:] {
				parent[parent.find(l.local[k])] = parent.find(l.local[g[0]])
			}
		}
	}
	// Each class's first and last section, and whether it meets a
	// boundary left unjoined.
	lo, hi := make([]int32, n), make([]int32, n)
	touch := make([]bool, n)
	for i := range n {
		lo[i], hi[i] = ns, 0
	}
	for i, k := range pt.bufs {
		r := parent.find(int32(i))
		a, b := in.secLo[k]-pt.secLo, in.secHi[k]-pt.secLo
		lo[r], hi[r] = min(lo[r], a), max(hi[r], b)
		touch[r] = touch[r] || open[a] || open[b]
	}
	type class struct {
		net   int64 // bytes its buffers end here less those they start
		ks    [2][]int32
		inert bool
	}
	at := map[int32]int{}
	var cs []class
	for side, ks := range [2][]int32{bd.e, bd.st} {
		for _, k := range ks {
			r := parent.find(l.local[k])
			x, ok := at[r]
			if !ok {
				x = len(cs)
				at[r] = x
				cs = append(cs, class{inert: !touch[r] && (lo[r] == 0 && hi[r] == bd.s || lo[r] == bd.s && hi[r] == ns)})
			}
			if side == 0 {
				cs[x].net += in.size[k]
			} else {
				cs[x].net -= in.size[k]
			}
			cs[x].ks[side] = append(cs[x].ks[side], k)
		}
	}
	abs := func(x int) int64 {
		if cs[x].net < 0 {
			return -cs[x].net
		}
		return cs[x].net
	}
	var out [][2][]int32
	var live []int
	var inert [2][]int // of positive and of negative nets
	for x, c := range cs {
		switch {
		case c.net == 0:
			out = append(out, c.ks)
		case !c.inert:
			live = append(live, x)
		case c.net > 0:
			inert[0] = append(inert[0], x)
		default:
			inert[1] = append(inert[1], x)
		}
	}
	used := make([]bool, len(cs))
	join := func(xs []int) [2][]int32 {
		var g [2][]int32
		for _, x := range xs {
			used[x] = true
			g[0] = append(g[0], cs[x].ks[0]...)
			g[1] = append(g[1], cs[x].ks[1]...)
		}
		return g
	}
	// free lists the inert classes of a side not yet grouped, and their
	// nets.
	free := func(side int) ([]int, []int64) {
		var xs []int
		var nets []int64
		for _, x := range inert[side] {
			if !used[x] {
				xs, nets = append(xs, x), append(nets, abs(x))
			}
		}
		return xs, nets
	}
	// Same-size pairs. The buffers of one lifetime in a live class (a
	// block cut in address, or a rectangle of its own) whose each has a
	// buffer of its size of the other side, in another class not yet
	// grouped whose net is of that side and not below it, are each
	// paired with one, those of live classes first: a buffer that goes
	// on past the boundary as it was. Where some of them have none, they
	// stay together (the sums of a block that was cut again), and so do
	// classes of buffers of both sides.
	owner := map[int32]int{}
	for x := range cs {
		for side := range 2 {
			for _, k := range cs[x].ks[side] {
				owner[k] = x
			}
		}
	}
	cut := make([]bool, len(cs)) // classes that lost buffers so
	remove := func(k int32, side int) {
		y := owner[k]
		cut[y] = true
		cs[y].ks[side] = slices.DeleteFunc(cs[y].ks[side], func(j int32) bool { return j == k })
		if side == 0 {
			cs[y].net -= in.size[k]
		} else {
			cs[y].net += in.size[k]
		}
		if len(cs[y].ks[0])+len(cs[y].ks[1]) == 0 {
			used[y] = true
		}
	}
	partner := func(k int32, side, x int, skip map[int32]bool) int32 {
		best := int32(-1)
		for _, k2 := range [2][]int32{bd.e, bd.st}[1-side] {
			y := owner[k2]
			if skip[k2] || y == x || used[y] || in.size[k2] != in.size[k] || (cs[y].net < 0) != (side == 0) || in.size[k2] > abs(y) {
				continue
			}
			if best < 0 || cs[owner[best]].inert && !cs[y].inert {
				best = k2
			}
		}
		return best
	}
	for _, x := range live {
		side := 0
		if cs[x].net < 0 {
			side = 1
		}
		if len(cs[x].ks[1-side]) > 0 || len(cs[x].ks[side]) < 2 {
			continue
		}
		byLife := map[[2]int32][]int32{}
		var lives [][2]int32
		for _, k := range cs[x].ks[side] {
			life := [2]int32{in.secLo[k], in.secHi[k]}
			if byLife[life] == nil {
				lives = append(lives, life)
			}
			byLife[life] = append(byLife[life], k)
		}
		for _, life := range lives {
			skip := map[int32]bool{}
			var prs [][2]int32
			for _, k := range byLife[life] {
				k2 := partner(k, side, x, skip)
				if k2 < 0 {
					prs = nil
					break
				}
				skip[k2] = true
				prs = append(prs, [2]int32{k, k2})
			}
			for _, pr := range prs {
				remove(pr[0], side)
				remove(pr[1], 1-side)
				var g [2][]int32
				g[side], g[1-side] = []int32{pr[0]}, []int32{pr[1]}
				out = append(out, g)
			}
		}
	}
	// A class so left with no net is a group of its own.
	for y := range cs {
		if cut[y] && !used[y] && cs[y].net == 0 {
			used[y] = true
			out = append(out, cs[y].ks)
		}
	}
	// Each live class, those that lost buffers to the pairs first (the
	// rest of a block whose other parts went on), the smallest net
	// first, with a group of the inert classes of the other side of its
	// total (pickTotal's).
	slices.SortStableFunc(live, func(x, y int) int {
		if cut[x] != cut[y] {
			if cut[x] {
				return -1
			}
			return 1
		}
		return cmp.Compare(abs(x), abs(y))
	})
	for _, x := range live {
		if used[x] {
			continue
		}
		side := 1
		if cs[x].net < 0 {
			side = 0
		}
		g := abs(x)
		if g/64+1 > maxInertWords {
			continue
		}
		xs, nets := free(side)
		if !reaches(nets, g) {
			continue
		}
		group := []int{x}
		for _, j := range pickTotal(nets, g) {
			group = append(group, xs[j])
		}
		out = append(out, join(group))
	}
	// Inert classes of both sides by the least totals both reach.
	for range maxWidePairs {
		xa, na := free(0)
		xb, nb := free(1)
		if len(xa) == 0 || len(xb) == 0 {
			break
		}
		g := leastCommonTotal(na, nb)
		if g < 0 || g/64+1 > maxInertWords {
			break
		}
		var group []int
		for _, j := range pickTotal(na, g) {
			group = append(group, xa[j])
		}
		for _, j := range pickTotal(nb, g) {
			group = append(group, xb[j])
		}
		out = append(out, join(group))
	}
	var rest []int
	for x := range cs {
		if !used[x] && cs[x].net != 0 {
			rest = append(rest, x)
		}
	}
	if len(rest) > 0 {
		out = append(out, join(rest))
	}
	return out
}

// totals returns the bitset, of the given words, of the totals that
// groups of s reach (exact below its length).
func totals(s []int64, words int) []uint64 {
	row := make([]uint64, words)
	row[0] = 1
	for _, x := range s {
		orShifted(row, row, x)
	}
	return row
}

// reaches says whether some group of s totals g.
func reaches(s []int64, g int64) bool {
	var sum int64
	for _, x := range s {
		sum += x
	}
	return g <= sum && totals(s, int(g/64+1))[g/64]&(1<<(g%64)) != 0
}

// leastCommonTotal returns the least total g, 0 < g < the total of a,
// that a group of a and a group of b reach, or -1; up to maxInertWords
// words, 64 first and twice as many until one is found.
func leastCommonTotal(a, b []int64) int64 {
	var rest int64
	for _, x := range a {
		rest += x
	}
	return leastCommon(rest, int(min(rest/64+1, maxInertWords)), func(words int) ([]uint64, []uint64) {
		return totals(a, words), totals(b, words)
	})
}

// pickTotal returns the indices of a group of s of total g, which some
// group reaches: the latest buffers left out wherever the others reach
// what is left.
func pickTotal(s []int64, g int64) []int {
	rows := make([][]uint64, len(s)+1)
	rows[0] = make([]uint64, g/64+1)
	rows[0][0] = 1
	for i, x := range s {
		rows[i+1] = slices.Clone(rows[i])
		orShifted(rows[i+1], rows[i], x)
	}
	var pick []int
	for r := len(s); r > 0 && g > 0; r-- {
		if rows[r-1][g/64]&(1<<(g%64)) != 0 {
			continue // reached without this one
		}
		pick = append(pick, r-1)
		g -= s[r-1]
	}
	return pick
}
