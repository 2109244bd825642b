package exact

import (
	"cmp"
	"encoding/binary"
	"slices"
)

// maxFill is the largest part a filler searches: its conflict sets take
// n²/8 bytes.
const maxFill = 8192

// filler searches the perfect packings of a part with no slack at
// capacity c: every section of the part holds exactly c bytes (and no
// buffer needs padding), so a plan within c leaves no byte free anywhere.
// Such parts are what a packing cut from a full rectangle gives, which
// canonical search handles badly: it interleaves regions that do not
// interact and, on a failure in one, retries every choice in the others.
//
// A filler sweeps time, one way or the other (rev): the buffers that
// start in the first section not yet full, l, must fill its free bytes
// exactly (those starting earlier are all placed). So the lowest free
// byte y of l is the bottom of one of them, and the choices there are
// the search's branches. A choice is pruned when it overlaps a placed
// buffer; when the rest of its gap in l cannot be made up exactly from
// the sizes of the other unplaced buffers starting in l; and when, in
// some section of its lifetime, the free gap just below or just above it
// cannot be made up exactly from the sizes of the unplaced buffers living
// there (the sums are searched a few hundred steps, then assumed
// possible). Identical buffers go in index order, and a buffer does not
// sit directly on one of the same lifetime that comes later in the order
// of trial (longest first, then largest, then by index), which keeps one
// order of each such stack.
//
// Every dead end is explained by a set of earlier placements: the buffers
// bounding the cell and its gap, in l and in the section before it, the
// placed buffers that start in l, those whose overlap or whose gaps
// pruned a choice, and what explained each tried choice's failure, less
// that choice. When a failure's explanation does not include the
// placement just made, its alternatives cannot help, and the search
// returns at once to the latest placement that does take part
// (conflict-directed backjumping, Prosser 1993).
type filler struct {
	*pace
	in  *instance
	rev bool // sweep from the last section back

	cap int64
	pt  *part
	// lo[k], hi[k]: buffer k's sections in the order of the sweep.
	lo, hi []int32
	// left[u] counts the unplaced buffers live in sweep section u.
	left []int32
	dep  []int32 // per buffer: depth of the placement, -1 if unplaced
	off  []int64
	// starts[u] lists the buffers whose first sweep section is u, in
	// the order they are tried; rank[k] is k's place in it.
	starts [][]int32
	rank   []int32

	// cs[d] is the conflict set of the node at depth d once it failed:
	// a bitset of placement depths.
	cs    [][]uint64
	words int
	occ   [][]int32 // per depth: scratch
	sums  []int64   // scratch
	// bySize[t] lists the buffers live in section t, largest first
	// (sumOf's order), made when first asked for.
	bySize [][]int32
	key    []byte  // scratch: sumOf's key
	sums1  sumMemo // sumOf's answers without a budget
	sol    []int64
}

// zeroSlack reports whether every section of pt holds exactly c bytes and
// no buffer living there needs padding.
func (in *instance) zeroSlack(pt *part, c int64) bool {
	for t := pt.secLo; t < pt.secHi; t++ {
		if in.load[t] != c || in.aload[t] != c {
			return false
		}
	}
	return true
}

func newFiller(in *instance, rev bool) *filler {
	n, ns := len(in.size), len(in.load)
	return &filler{
		pace: &pace{}, in: in, rev: rev, lo: make([]int32, n), hi: make([]int32, n), left: make([]int32, ns),
		dep: make([]int32, n), off: make([]int64, n), starts: make([][]int32, ns),
		rank: make([]int32, n), sol: make([]int64, n),
	}
}

func (f *filler) offsets() []int64 { return f.sol }

// sec returns the section at sweep position u.
func (f *filler) sec(u int32) int32 {
	if f.rev {
		return f.pt.secLo + f.pt.secHi - 1 - u
	}
	return u
}

// live lists the buffers live at sweep position u.
func (f *filler) live(u int32) []int32 { return f.in.secBufs[f.sec(u)] }

// solve searches for a perfect packing of pt within c; pt must have no
// slack at c.
func (f *filler) solve(pt *part, c, limit int64) outcome {
	f.limit, f.count = limit, 0
	return f.search(pt, c)
}

// search is solve on a pace already set, perhaps shared with others.
func (f *filler) search(pt *part, c int64) outcome {
	f.cap, f.pt = c, pt
	in := f.in
	for u := pt.secLo; u < pt.secHi; u++ {
		f.left[u] = int32(len(f.live(u)))
		f.starts[u] = f.starts[u][:0]
	}
	for _, k := range pt.bufs {
		f.dep[k] = -1
		f.lo[k], f.hi[k] = in.secLo[k], in.secHi[k]
		if f.rev {
			f.lo[k], f.hi[k] = pt.secLo+pt.secHi-in.secHi[k], pt.secLo+pt.secHi-in.secLo[k]
		}
		f.starts[f.lo[k]] = append(f.starts[f.lo[k]], k)
	}
	for u := pt.secLo; u < pt.secHi; u++ {
		slices.SortFunc(f.starts[u], func(a, b int32) int {
			if c := cmp.Compare(f.hi[b], f.hi[a]); c != 0 {
				return c
			}
			if c := cmp.Compare(in.size[b], in.size[a]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		for r, k := range f.starts[u] {
			f.rank[k] = int32(r)
		}
	}
	n := len(pt.bufs)
	f.words = (n + 64) / 64
	for len(f.cs) <= n {
		f.cs = append(f.cs, nil)
		f.occ = append(f.occ, nil)
	}
	return f.dfs(0, pt.secLo)
}

// conflicts returns the cleared conflict set of depth d.
func (f *filler) conflicts(d int) []uint64 {
	if len(f.cs[d]) < f.words {
		f.cs[d] = make([]uint64, f.words)
	}
	cs := f.cs[d][:f.words]
	clear(cs)
	return cs
}

func (f *filler) add(cs []uint64, k int32) {
	x := f.dep[k]
	cs[x/64] |= 1 << (x % 64)
}

func (f *filler) dfs(d int, l int32) outcome {
	pt := f.pt
	if d == len(pt.bufs) {
		return found
	}
	if !f.node() {
		return aborted
	}
	in := f.in
	for f.left[l] == 0 {
		l++
	}
	// The placed buffers of l, by offset; y its lowest free byte, which
	// below fills up to, and gapEnd the bottom of above, the next placed
	// buffer up (or the capacity).
	occ := f.occ[d][:0]
	for _, j := range f.live(l) {
		if f.dep[j] >= 0 {
			occ = append(occ, j)
		}
	}
	slices.SortFunc(occ, func(a, b int32) int { return cmp.Compare(f.off[a], f.off[b]) })
	f.occ[d] = occ
	y := int64(0)
	below, above := int32(-1), int32(-1)
	for _, j := range occ {
		if f.off[j] != y {
			break
		}
		y += in.size[j]
		below = j
	}
	gapEnd := f.cap
	for _, j := range occ {
		if f.off[j] > y {
			gapEnd, above = f.off[j], j
			break
		}
	}
	cs := f.conflicts(d)
	if below >= 0 {
		f.add(cs, below)
	}
	if above >= 0 {
		f.add(cs, above)
	}
	if l > pt.secLo {
		// Section l-1 is full: these keep what started before l out of
		// the gap.
		for _, j := range f.live(l - 1) {
			if f.off[j] < gapEnd && y < f.off[j]+in.size[j] {
				f.add(cs, j)
			}
		}
	}
	minSize := int64(1<<62 - 1)
	for _, k := range f.starts[l] {
		if f.dep[k] >= 0 {
			f.add(cs, k) // placed elsewhere, it could have gone here
		} else {
			minSize = min(minSize, in.size[k])
		}
	}
	for _, k := range f.starts[l] {
		if f.dep[k] >= 0 || y+in.size[k] > gapEnd {
			continue
		}
		if g := gapEnd - y - in.size[k]; g > 0 && (g < minSize || !f.sumOf(f.starts[l], k, g)) {
			continue
		}
		if t := in.twin[k]; t >= 0 && f.dep[t] < 0 {
			// Its identical twin goes first, so lower: what holds the
			// bytes below y in l keeps it from there.
			for _, j := range occ {
				if f.off[j] < y {
					f.add(cs, j)
				}
			}
			continue
		}
		if below >= 0 && f.lo[below] == l && f.hi[below] == f.hi[k] && f.rank[below] > f.rank[k] {
			continue // the other order of the two is searched instead
		}
		clash := int32(-1)
		for _, j := range in.overlaps[k] {
			if f.dep[j] >= 0 && f.off[j] < y+in.size[k] && y < f.off[j]+in.size[j] {
				clash = j
				break
			}
		}
		if clash >= 0 {
			f.add(cs, clash)
			continue
		}
		f.place(k, y, d)
		if !f.gapsFit(k, cs) {
			f.unplace(k)
			continue
		}
		res := f.dfs(d+1, l)
		f.unplace(k)
		if res != infeasible {
			if res == found {
				f.sol[k] = y
			}
			return res
		}
		child := f.cs[d+1][:f.words]
		if child[d/64]&(1<<(d%64)) == 0 {
			// The failure below does not depend on this placement: no
			// alternative to it can help.
			copy(cs, child)
			return infeasible
		}
		for x := range cs {
			cs[x] |= child[x]
		}
		cs[d/64] &^= 1 << (d % 64)
	}
	return infeasible
}

// gapsFit checks, after k was placed, that in every section of k's
// lifetime the free gaps just below and just above k can still be made
// up exactly from the sizes of the unplaced buffers living there. On
// failure it adds to cs the placements that explain it, k's aside: the
// other side of the gap, and the placed buffers of the section that are
// small enough to have gone in it.
func (f *filler) gapsFit(k int32, cs []uint64) bool {
	in := f.in
	y, top := f.off[k], f.off[k]+in.size[k]
	for u := f.lo[k]; u < f.hi[k]; u++ {
		live := f.live(u)
		lo, hi := int64(0), f.cap
		lob, hib := int32(-1), int32(-1)
		for _, j := range live {
			if f.dep[j] < 0 || j == k {
				continue
			}
			if e := f.off[j] + in.size[j]; e <= y && e > lo {
				lo, lob = e, j
			}
			if f.off[j] >= top && f.off[j] < hi {
				hi, hib = f.off[j], j
			}
		}
		for side, gap := range [2][2]int64{{lo, y}, {top, hi}} {
			g := gap[1] - gap[0]
			if g == 0 || f.sumOf(f.largestFirst(f.sec(u)), -1, g) {
				continue
			}
			if b := [2]int32{lob, hib}[side]; b >= 0 {
				f.add(cs, b)
			}
			for _, j := range live {
				if f.dep[j] >= 0 && j != k && in.size[j] <= g {
					f.add(cs, j)
				}
			}
			return false
		}
	}
	return true
}

// largestFirst returns the buffers live in section t, largest first.
func (f *filler) largestFirst(t int32) []int32 {
	if f.bySize == nil {
		f.bySize = make([][]int32, len(f.in.secBufs))
	}
	if f.bySize[t] == nil {
		ks := slices.Clone(f.in.secBufs[t])
		slices.SortStableFunc(ks, func(a, b int32) int { return cmp.Compare(f.in.size[b], f.in.size[a]) })
		f.bySize[t] = ks
	}
	return f.bySize[t]
}

// sumOf reports whether the sizes of some unplaced buffers of list, k
// aside, sum to g. It gives up, reporting true, after a few hundred
// steps. It takes the sizes largest first: where list is in that order
// already (largestFirst's) there is nothing to sort.
func (f *filler) sumOf(list []int32, k int32, g int64) bool {
	in := f.in
	sz := f.sums[:0]
	var total int64
	for _, j := range list {
		if f.dep[j] < 0 && j != k && in.size[j] <= g {
			sz = append(sz, in.size[j])
			total += in.size[j]
		}
	}
	f.sums = sz
	if total <= g {
		return total == g
	}
	if !slices.IsSortedFunc(sz, descending) {
		slices.SortFunc(sz, descending)
	}
	key := f.key[:0]
	for _, x := range sz {
		key = binary.LittleEndian.AppendUint64(key, uint64(x))
	}
	key = binary.LittleEndian.AppendUint64(key, uint64(g))
	f.key = key
	memo := f.sumMemo()
	if ok, seen := memo.m[string(key)]; seen {
		return ok
	}
	ok := (&sumSearch{sz: sz}).from(0, g, total)
	if memo.bytes+len(key) > maxSumMemo {
		clear(memo.m)
		memo.bytes = 0
	}
	memo.m[string(key)] = ok
	memo.bytes += len(key)
	return ok
}

// maxSumMemo is the most bytes of keys (8 a size) of sumOf's answers
// remembered: past it they are forgotten, all at once.
const maxSumMemo = 8 << 20

// sumMemo holds sumOf's answers by the sizes (largest first) and the
// total asked about, and the bytes of their keys.
type sumMemo struct {
	m     map[string]bool
	bytes int
}

// sumMemo returns the answers of sumOf remembered: those of the budget,
// which every engine of a plan shares (on a pinwheel of 1,000 buffers
// 99% of sumOf's questions were asked before, by it or another), or the
// filler's own where it runs without one.
func (f *filler) sumMemo() *sumMemo {
	m := &f.sums1
	if f.b != nil {
		m = &f.b.sums
	}
	if m.m == nil {
		m.m = map[string]bool{}
	}
	return m
}

// maxSumSteps is the most steps sumOf searches before it assumes a sum
// possible.
const maxSumSteps = 512

// sumSearch looks for a group of the sizes sz (largest first) of a
// total, counting its steps.
type sumSearch struct {
	sz    []int64
	steps int
}

// from reports whether some of sz[i:] (of total rest) sum to g, or
// maxSumSteps were taken. Each turn of its loop is one step: take sz[i]
// (a call), else leave out every size equal to it (taking another of
// them instead would be the same) and go on.
func (s *sumSearch) from(i int, g, rest int64) bool {
	for {
		if g == 0 {
			return true
		}
		if s.steps++; s.steps > maxSumSteps {
			return true
		}
		if i == len(s.sz) || rest < g {
			return false
		}
		x := s.sz[i]
		if x <= g && s.from(i+1, g-x, rest-x) {
			return true
		}
		i, rest = i+1, rest-x
		for i < len(s.sz) && s.sz[i] == x {
			rest -= x
			i++
		}
	}
}

func descending(a, b int64) int { return cmp.Compare(b, a) }

func (f *filler) place(k int32, y int64, d int) {
	f.dep[k], f.off[k] = int32(d), y
	for u := f.lo[k]; u < f.hi[k]; u++ {
		f.left[u]--
	}
}

func (f *filler) unplace(k int32) {
	f.dep[k] = -1
	for u := f.lo[k]; u < f.hi[k]; u++ {
		f.left[u]++
	}
}
