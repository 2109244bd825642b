package exact

import (
	"context"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"membench/workloads"
)

// pairLargeRef is pairLarge as it was before leastCommonSum (9303e86):
// full tables of every sum for both sides at each pair. Kept to check
// that the faster one pairs the same groups.
func pairLargeRef(a, b []int64) [][2]uint64 {
	if !pairable(a, b) {
		return nil
	}
	restA, restB := uint64(1)<<len(a)-1, uint64(1)<<len(b)-1
	var pairs [][2]uint64
	for {
		ta, tb := sumTable(a, restA, maskSum(a, restA)), sumTable(b, restB, maskSum(b, restB))
		fa, fb := ta[len(ta)-1], tb[len(tb)-1]
		rest := maskSum(a, restA)
		g := int64(-1)
		for w := 0; w < len(fa) && g < 0; w++ {
			for m := fa[w] & fb[w]; m != 0; m &= m - 1 {
				if x := int64(w)*64 + int64(bits.TrailingZeros64(m)); x > 0 && x < rest {
					g = x
					break
				}
			}
		}
		if g < 0 || len(pairs) == maxGroupPairs {
			return append(pairs, [2]uint64{restA, restB})
		}
		x, y := pickSum(a, restA, ta, g), pickSum(b, restB, tb, g)
		pairs = append(pairs, [2]uint64{x, y})
		restA, restB = restA&^x, restB&^y
	}
}

// TestPairLargeMatchesReference pairs random boundaries of equal totals
// (cut from one run of bytes at random points on each side, so that
// common totals exist; sparse: few cuts of large sizes, dense: many of
// small ones) with pairLarge and with the full-table reference: the
// pairs must be the same, masks and order.
func TestPairLargeMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 2))
	cuts := func(total int64, n int) []int64 {
		pts := []int64{0, total}
		for len(pts) < n+1 {
			x := 1 + r.Int64N(total-1)
			if !slices.Contains(pts, x) {
				pts = append(pts, x)
			}
		}
		slices.Sort(pts)
		s := make([]int64, n)
		for i := range s {
			s[i] = pts[i+1] - pts[i]
		}
		r.Shuffle(n, func(i, j int) { s[i], s[j] = s[j], s[i] })
		return s
	}
	paired := 0
	for i := range 400 {
		var total int64
		var na, nb int
		switch i % 4 {
		case 0: // sparse: large sizes, few buffers
			total, na, nb = 1<<20+r.Int64N(1<<20), 2+r.IntN(8), 2+r.IntN(8)
		case 1: // dense: small sizes, many buffers
			total, na, nb = 2000+r.Int64N(20000), 10+r.IntN(20), 10+r.IntN(20)
		case 2: // one block shared by both sides, the rest cut apart
			total, na, nb = 1<<16+r.Int64N(1<<18), 3+r.IntN(25), 3+r.IntN(25)
		default: // near the limits on buffers
			total, na, nb = 1<<12+r.Int64N(1<<16), 20+r.IntN(8), 20+r.IntN(8)
		}
		a, b := cuts(total, na), cuts(total, nb)
		if i%4 == 2 {
			blk := 1 + r.Int64N(total/2)
			a, b = append(cuts(total-blk, na), blk), append(cuts(total-blk, nb), blk)
		}
		got, want := pairLarge(a, b), pairLargeRef(a, b)
		if !slices.Equal(got, want) {
			t.Fatalf("pairLarge(%v, %v) = %x, reference %x", a, b, got, want)
		}
		if len(want) > 1 {
			paired++
		}
	}
	if paired < 100 {
		t.Fatalf("only %d of 400 boundaries paired more than one group: the test does not exercise pairing", paired)
	}
}

// TestSumOfLargestFirst checks sumOf, on a section's buffers largest
// first (largestFirst, which it need not sort) and in the instance's
// order, against the search it replaced (sumsRef) on the sizes of the
// unplaced buffers of the section up to the gap, for every section of
// a pinwheel with random buffers placed and random gaps, each asked
// several times (the later answers remembered: sumMemo); and that
// largestFirst is in that order.
func TestSumOfLargestFirst(t *testing.T) {
	in := loadInstance(t, "synthetic/pinwheel?n=300&sizes=log-uniform&seed=2")
	f := newFiller(in, false)
	r := rand.New(rand.NewPCG(3, 4))
	trues, falses := 0, 0
	for t32 := range int32(len(in.secBufs)) {
		ks := f.largestFirst(t32)
		if !slices.IsSortedFunc(ks, func(a, b int32) int { return descending(in.size[a], in.size[b]) }) {
			t.Fatalf("section %d: largestFirst not largest first", t32)
		}
		for range 20 {
			for k := range f.dep {
				f.dep[k] = int32(r.IntN(2)) - 1
			}
			// The last two gaps are above every size: the same sizes,
			// different totals.
			top := in.size[ks[0]] + r.Int64N(1<<16)
			for _, g := range []int64{1 + r.Int64N(1<<20), 1 + r.Int64N(1<<16), 1 + r.Int64N(1<<12), top, top + 1} {
				var sz []int64
				var total int64
				for _, k := range ks {
					if f.dep[k] < 0 && in.size[k] <= g {
						sz = append(sz, in.size[k])
						total += in.size[k]
					}
				}
				want := total == g || total > g && sumsRef(sz, g, total)
				for range 2 {
					if got := f.sumOf(ks, -1, g); got != want {
						t.Fatalf("section %d, gap %d: %v on largestFirst, want %v", t32, g, got, want)
					}
					if got := f.sumOf(in.secBufs[t32], -1, g); got != want {
						t.Fatalf("section %d, gap %d: %v in order, want %v", t32, g, got, want)
					}
				}
				if want {
					trues++
				} else {
					falses++
				}
			}
		}
	}
	if trues == 0 || falses == 0 {
		t.Fatalf("%d true and %d false answers: the test does not tell them apart", trues, falses)
	}
}

// sumsRef is sumOf's search as it was (9303e86), a recursive closure.
func sumsRef(sz []int64, g, total int64) bool {
	steps := 0
	var rec func(i int, g, rest int64) bool
	rec = func(i int, g, rest int64) bool {
		if g == 0 {
			return true
		}
		if steps++; steps > 512 {
			return true
		}
		if i == len(sz) || rest < g {
			return false
		}
		if sz[i] <= g && rec(i+1, g-sz[i], rest-sz[i]) {
			return true
		}
		j, r := i+1, rest-sz[i]
		for j < len(sz) && sz[j] == sz[i] {
			r -= sz[j]
			j++
		}
		return rec(j, g, r)
	}
	return rec(0, g, total)
}

// TestSumSearchMatchesReference checks sumSearch against the recursive
// closure it replaced, on random sizes (few distinct values and many,
// so that searches end by a sum found, by exhaustion and by the step
// limit), and that all three ways of ending occur.
func TestSumSearchMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var found, exhausted, gaveUp int
	for i := range 3000 {
		n := 1 + r.IntN(40)
		hi := int64(2 + r.IntN([]int{4, 100, 1 << 16}[i%3]))
		sz := make([]int64, n)
		var total int64
		for j := range sz {
			sz[j] = 1 + r.Int64N(hi)
			total += sz[j]
		}
		slices.SortFunc(sz, descending)
		g := 1 + r.Int64N(total)
		s := &sumSearch{sz: sz}
		got, want := s.from(0, g, total), sumsRef(sz, g, total)
		if got != want {
			t.Fatalf("sizes %v, total %d: %v, reference %v", sz, g, got, want)
		}
		switch {
		case s.steps > maxSumSteps:
			gaveUp++
		case got:
			found++
		default:
			exhausted++
		}
	}
	if found == 0 || exhausted == 0 || gaveUp == 0 {
		t.Fatalf("found %d, exhausted %d, gave up %d: some way of ending untested", found, exhausted, gaveUp)
	}
}

// TestStopExactWithClock checks that a band's cap (pace.stop) ends a
// search at the node past it when the budget is of time, as it does
// under a node budget, whatever the clock's skip: at a cap of 10, the
// 11th node aborts (the clock, read every 256 nodes, let it run to 256).
func TestStopExactWithClock(t *testing.T) {
	for _, nodes := range []int64{-1, 1000} {
		b := &budget{ctx: context.Background(), nodes: nodes, deadline: time.Now().Add(time.Hour)}
		p := &pace{b: b, limit: 1 << 62, stop: 10}
		n := 1
		for p.node() {
			n++
		}
		if n != 11 {
			t.Errorf("node budget %d: aborted at node %d, want 11", nodes, n)
		}
		p = &pace{b: b, limit: 1 << 62}
		for range 300 {
			if !p.node() {
				t.Fatalf("node budget %d: no cap, aborted at node %d", nodes, p.count)
			}
		}
	}
}

// TestSumMemoBounded checks that sumOf's remembered answers stay within
// maxSumMemo bytes of keys, forgetting them all when full, and that
// what it counts is the bytes of the keys it holds.
func TestSumMemoBounded(t *testing.T) {
	in := loadInstance(t, "synthetic/pinwheel?n=300&sizes=uniform&seed=1")
	f := newFiller(in, false)
	for k := range f.dep {
		f.dep[k] = -1
	}
	ks := f.largestFirst(0)
	forgot := false
	for g := int64(1); g < 1<<20 && !forgot; g++ {
		before := f.sums1.bytes
		f.sumOf(ks, -1, g)
		if f.sums1.bytes > maxSumMemo {
			t.Fatalf("gap %d: %d bytes remembered, more than %d", g, f.sums1.bytes, maxSumMemo)
		}
		forgot = f.sums1.bytes < before
	}
	if !forgot {
		t.Fatal("never forgot: the test did not fill the memo")
	}
	n := 0
	for key := range f.sums1.m {
		n += len(key)
	}
	if n != f.sums1.bytes {
		t.Fatalf("%d bytes counted, the keys hold %d", f.sums1.bytes, n)
	}
}

// loadInstance loads the workload spec and makes its instance.
func loadInstance(t *testing.T, spec string) *instance {
	t.Helper()
	w, err := workloads.Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	in, err := newInstance(context.Background(), w.Problem)
	if err != nil {
		t.Fatal(err)
	}
	return in
}
