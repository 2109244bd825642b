package workloads

import (
	"math/rand"
	"sort"
	"testing"
)

func win(lo, hi int64) *Window { return &Window{Lo: lo, Hi: hi} }

// TestEffectiveSize checks the shared rule on hand-computed cases: the
// want columns are worked out from the definition, task by task.
func TestEffectiveSize(t *testing.T) {
	cases := []struct {
		name   string
		a, b   Buffer
		ga, gb []Gap
		ab, ba int64 // a's effective size below b, b's below a
		ok     bool
	}{
		{name: "no gaps, lifetimes meet", a: Buffer{Size: 10, First: 0, Last: 4}, b: Buffer{Size: 7, First: 4, Last: 9},
			ab: 10, ba: 7, ok: true},
		{name: "no gaps, apart", a: Buffer{Size: 10, First: 0, Last: 3}, b: Buffer{Size: 7, First: 4, Last: 9}},
		{name: "empty gap covers the overlap", a: Buffer{Size: 10, First: 0, Last: 9}, b: Buffer{Size: 8, First: 5, Last: 7},
			ga: []Gap{{First: 3, Last: 9}}},
		// Tasks 6..8: a uses [0,4), b all of [0,8).
		{name: "window", a: Buffer{Size: 10, First: 0, Last: 9}, b: Buffer{Size: 8, First: 6, Last: 8},
			ga: []Gap{{First: 5, Last: 9, Window: win(0, 4)}}, ab: 4, ba: 8, ok: true},
		// Tasks 5,6: a [2,6), b [4,8): a below b 6-4=2, b below a 8-2=6.
		// Tasks 7..9: a [2,6), b [0,8): 6-0=6, 8-2=6.
		{name: "both windows", a: Buffer{Size: 10, First: 0, Last: 9}, b: Buffer{Size: 8, First: 5, Last: 9},
			ga: []Gap{{First: 5, Last: 9, Window: win(2, 6)}}, gb: []Gap{{First: 5, Last: 6, Window: win(4, 8)}},
			ab: 6, ba: 6, ok: true},
		// Only tasks 5,6 count (b's gap empties 7..9): 2 and 6.
		{name: "both windows, then empty", a: Buffer{Size: 10, First: 0, Last: 9}, b: Buffer{Size: 8, First: 5, Last: 9},
			ga: []Gap{{First: 5, Last: 9, Window: win(2, 6)}}, gb: []Gap{{First: 5, Last: 6, Window: win(4, 8)}, {First: 7, Last: 9}},
			ab: 2, ba: 6, ok: true},
		// a [0,2) against b [5,8): a below b 2-5 = -3; b below a 8-0 = 8.
		{name: "negative", a: Buffer{Size: 10, First: 0, Last: 3}, b: Buffer{Size: 8, First: 0, Last: 3},
			ga: []Gap{{First: 0, Last: 3, Window: win(0, 2)}}, gb: []Gap{{First: 0, Last: 3, Window: win(5, 8)}},
			ab: -3, ba: 8, ok: true},
		// a's gap ends at task 4; b starts at 5, where a uses all of it.
		{name: "gap ends as the other starts", a: Buffer{Size: 10, First: 0, Last: 9}, b: Buffer{Size: 3, First: 5, Last: 5},
			ga: []Gap{{First: 2, Last: 4}}, ab: 10, ba: 3, ok: true},
		// a's empty gap starts at the task b ends: only task 2 counts.
		{name: "gap starts as the other ends", a: Buffer{Size: 10, First: 0, Last: 9}, b: Buffer{Size: 3, First: 0, Last: 3},
			ga: []Gap{{First: 3, Last: 9}}, ab: 10, ba: 3, ok: true},
		// Adjacent gaps of a: task 2,3 window [0,1), 4,5 none, 6 all.
		{name: "adjacent gaps", a: Buffer{Size: 10, First: 2, Last: 6}, b: Buffer{Size: 4, First: 2, Last: 5},
			ga: []Gap{{First: 2, Last: 3, Window: win(0, 1)}, {First: 4, Last: 5}}, ab: 1, ba: 4, ok: true},
		{name: "adjacent gaps, b reaches the full part", a: Buffer{Size: 10, First: 2, Last: 6}, b: Buffer{Size: 4, First: 5, Last: 6},
			ga: []Gap{{First: 2, Last: 3, Window: win(0, 1)}, {First: 4, Last: 5}}, ab: 10, ba: 4, ok: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &Problem{Buffers: []Buffer{c.a, c.b}}
			if c.ga != nil || c.gb != nil {
				p.Gaps = [][]Gap{c.ga, c.gb}
			}
			if err := CheckForms(p); err != nil {
				t.Fatal(err)
			}
			ab, ok1 := EffectiveSize(p, 0, 1)
			ba, ok2 := EffectiveSize(p, 1, 0)
			if ok1 != c.ok || ok2 != c.ok || c.ok && (ab != c.ab || ba != c.ba) {
				t.Errorf("EffectiveSize = %d,%v and %d,%v; want %d and %d, %v", ab, ok1, ba, ok2, c.ab, c.ba, c.ok)
			}
		})
	}
}

// TestCollide checks the placed-pair rule: the validator's two orders.
func TestCollide(t *testing.T) {
	// a: size 10, tasks 0..9, using [0,4) during 5..9. b: size 8, tasks 6..8.
	p := &Problem{Buffers: []Buffer{{Size: 10, First: 0, Last: 9}, {Size: 8, First: 6, Last: 8}},
		Gaps: [][]Gap{{{First: 5, Last: 9, Window: win(0, 4)}}, nil}}
	for _, c := range []struct {
		oa, ob int64
		want   bool
	}{
		{0, 4, false},  // b above a's window
		{0, 3, true},   // b one byte into it
		{8, 0, false},  // a above b
		{7, 0, true},   // a one byte into b
		{20, 0, false}, // far apart
	} {
		if got := Collide(p, 0, 1, c.oa, c.ob); got != c.want {
			t.Errorf("Collide(a@%d, b@%d) = %v, want %v", c.oa, c.ob, got, c.want)
		}
		if got := Collide(p, 1, 0, c.ob, c.oa); got != c.want {
			t.Errorf("Collide(b@%d, a@%d) = %v, want %v", c.ob, c.oa, got, c.want)
		}
	}
	// Zero-size buffers conflict with nothing, as in Validate.
	z := &Problem{Buffers: []Buffer{{Size: 0, First: 0, Last: 3}, {Size: 8, First: 0, Last: 3}}}
	if Collide(z, 0, 1, 4, 0) || Collide(z, 1, 0, 0, 4) {
		t.Error("a zero-size buffer inside another's range collides")
	}
}

// refEffectiveSize follows MiniMalloc's Buffer::effective_size step by
// step: half-open time points sorted by time, then kind (start, gap end,
// gap start, end), then buffer; the windows after every point of one
// time hold until the next time.
func refEffectiveSize(a, b Buffer, ga, gb []Gap) (int64, bool) {
	if a.Last+1 <= b.First || b.Last+1 <= a.First {
		return 0, false
	}
	type point struct {
		buf, t, kind int
		w            *Window
	}
	const (
		kLeft = iota
		kLeftGap
		kRightGap
		kRight
	)
	var pts []point
	for k, x := range []struct {
		b Buffer
		g []Gap
	}{{a, ga}, {b, gb}} {
		full := &Window{0, x.b.Size}
		pts = append(pts, point{k, x.b.First, kLeft, full}, point{k, x.b.Last + 1, kRight, nil})
		for _, g := range x.g {
			pts = append(pts, point{k, g.First, kRightGap, g.Window}, point{k, g.Last + 1, kLeftGap, full})
		}
	}
	sort.Slice(pts, func(i, j int) bool {
		p, q := pts[i], pts[j]
		if p.t != q.t {
			return p.t < q.t
		}
		if p.kind != q.kind {
			return p.kind < q.kind
		}
		return p.buf < q.buf
	})
	var w [2]*Window
	var size int64
	ok, started := false, false
	last := 0
	for _, pt := range pts {
		if started && pt.t > last && w[0] != nil && w[1] != nil {
			if d := w[0].Hi - w[1].Lo; !ok || d > size {
				size, ok = d, true
			}
		}
		started, last = true, pt.t
		w[pt.buf] = pt.w
	}
	return size, ok
}

// randGaps returns sorted, disjoint gaps inside [first, last].
func randGaps(r *rand.Rand, first, last int, size int64) []Gap {
	var gs []Gap
	t := first
	for t <= last && r.Intn(3) > 0 {
		f := t + r.Intn(last-t+1)
		l := f + r.Intn(last-f+1)
		g := Gap{First: f, Last: l}
		if r.Intn(2) == 0 {
			lo := r.Int63n(size + 1)
			g.Window = win(lo, lo+r.Int63n(size-lo+1))
		}
		gs = append(gs, g)
		t = l + 1
	}
	return gs
}

// TestEffectiveSizeMatchesUpstream compares EffectiveSize with the
// step-by-step reference on random pairs with gaps.
func TestEffectiveSizeMatchesUpstream(t *testing.T) {
	r := rand.New(rand.NewSource(20))
	for n := 0; n < 20000; n++ {
		var bs [2]Buffer
		var gs [2][]Gap
		for k := range bs {
			f := r.Intn(8)
			bs[k] = Buffer{Size: r.Int63n(12), First: f, Last: f + r.Intn(8)}
			gs[k] = randGaps(r, bs[k].First, bs[k].Last, bs[k].Size)
		}
		p := &Problem{Buffers: bs[:], Gaps: gs[:]}
		if err := CheckForms(p); err != nil {
			t.Fatal(err)
		}
		for _, o := range [][2]int{{0, 1}, {1, 0}} {
			got, gotOK := EffectiveSize(p, o[0], o[1])
			want, wantOK := refEffectiveSize(bs[o[0]], bs[o[1]], gs[o[0]], gs[o[1]])
			if got != want || gotOK != wantOK {
				t.Fatalf("buffers %+v gaps %+v: EffectiveSize(%d,%d) = %d,%v; upstream %d,%v",
					bs, gs, o[0], o[1], got, gotOK, want, wantOK)
			}
		}
	}
}

// TestEffectiveSizeUpstreamCases are MiniMalloc's own tests of
// Buffer::effective_size (tests/minimalloc_test.cc at 9f5cf81), their
// half-open lifespans [lower, upper) written as inclusive tasks.
func TestEffectiveSizeUpstreamCases(t *testing.T) {
	type hb struct {
		lo, up int // half-open lifespan
		size   int64
		gaps   [][4]int64 // lower, upper, window lo, hi (-1: none)
	}
	conv := func(b hb) (Buffer, []Gap) {
		var gs []Gap
		for _, g := range b.gaps {
			gap := Gap{First: int(g[0]), Last: int(g[1]) - 1}
			if g[2] >= 0 {
				gap.Window = &Window{g[2], g[3]}
			}
			gs = append(gs, gap)
		}
		return Buffer{Size: b.size, First: b.lo, Last: b.up - 1}, gs
	}
	const none = -1
	cases := []struct {
		name   string
		a, b   hb
		ab, ba int64 // none for nullopt
	}{
		{"WithOverlap", hb{0, 2, 4, nil}, hb{1, 3, 5, nil}, 4, 5},
		{"WithoutOverlap", hb{0, 2, 4, nil}, hb{3, 5, 5, nil}, none, none},
		{"WithoutOverlapEdgeCase", hb{0, 2, 4, nil}, hb{2, 4, 5, nil}, none, none},
		{"GapsWithOverlap", hb{0, 10, 4, [][4]int64{{1, 4, -1, 0}, {6, 9, -1, 0}}}, hb{5, 15, 5, [][4]int64{{6, 9, -1, 0}, {11, 14, -1, 0}}}, 4, 5},
		{"GapsWithoutOverlap", hb{0, 10, 4, [][4]int64{{1, 9, -1, 0}}}, hb{5, 15, 5, [][4]int64{{6, 14, -1, 0}}}, none, none},
		{"GapsWithoutOverlapEdgeCaseFirst", hb{0, 10, 4, nil}, hb{5, 15, 5, [][4]int64{{5, 10, -1, 0}}}, none, none},
		{"GapsWithoutOverlapEdgeCaseSecond", hb{0, 10, 4, [][4]int64{{5, 10, -1, 0}}}, hb{5, 15, 5, nil}, none, none},
	}
	tetrisA := hb{0, 10, 2, [][4]int64{{0, 5, 0, 1}}}
	tetrisB := hb{0, 10, 2, [][4]int64{{5, 10, 1, 2}}}
	stairsA := hb{0, 15, 3, [][4]int64{{0, 5, 0, 1}, {5, 10, 0, 2}}}
	stairsB := hb{0, 15, 3, [][4]int64{{5, 10, 1, 3}, {10, 15, 2, 3}}}
	for _, c := range cases {
		a, ga := conv(c.a)
		b, gb := conv(c.b)
		p := &Problem{Buffers: []Buffer{a, b}, Gaps: [][]Gap{ga, gb}}
		if err := CheckForms(p); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, o := range []struct {
			i, j int
			want int64
		}{{0, 1, c.ab}, {1, 0, c.ba}} {
			got, ok := EffectiveSize(p, o.i, o.j)
			if o.want == none && ok || o.want != none && (!ok || got != o.want) {
				t.Errorf("%s: EffectiveSize(%d, %d) = %d, %v; want %d (-1: none)", c.name, o.i, o.j, got, ok, o.want)
			}
		}
	}
	// Tetris and Stairs check only A given B: 1.
	for _, c := range []struct {
		name string
		a, b hb
	}{{"Tetris", tetrisA, tetrisB}, {"Stairs", stairsA, stairsB}} {
		a, ga := conv(c.a)
		b, gb := conv(c.b)
		p := &Problem{Buffers: []Buffer{a, b}, Gaps: [][]Gap{ga, gb}}
		if got, ok := EffectiveSize(p, 0, 1); !ok || got != 1 {
			t.Errorf("%s: EffectiveSize = %d, %v; want 1", c.name, got, ok)
		}
	}
}
