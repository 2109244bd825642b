package view

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"membench/allocators"
	_ "membench/plugins"
	"membench/results"
	"membench/strategies"
	"membench/workloads"
)

// TestSeriesBinsExact checks every bin of every zoom against a scan of the
// raw values.
func TestSeriesBinsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 15, 16, 17, 33, 1000, 4097} {
		v := make([]int64, n)
		for i := range v {
			v[i] = rng.Int64N(1000) - 500
		}
		s := NewSeries(v)
		for trial := 0; trial < 50; trial++ {
			lo := rng.IntN(n)
			hi := lo + 1 + rng.IntN(n-lo)
			bins := s.Bins(lo, hi, 1+rng.IntN(300))
			next := lo
			for _, b := range bins {
				if b.Lo != next || b.Hi <= b.Lo {
					t.Fatalf("n=%d [%d,%d): bin [%d,%d) does not follow %d", n, lo, hi, b.Lo, b.Hi, next)
				}
				next = b.Hi
				mn, mx := v[b.Lo], v[b.Lo]
				for _, x := range v[b.Lo:b.Hi] {
					mn, mx = min(mn, x), max(mx, x)
				}
				if b.Min != mn || b.Max != mx {
					t.Fatalf("n=%d bin [%d,%d): got min %d max %d, want %d %d", n, b.Lo, b.Hi, b.Min, b.Max, mn, mx)
				}
			}
			if next != hi {
				t.Fatalf("n=%d [%d,%d): bins end at %d", n, lo, hi, next)
			}
		}
	}
}

func TestSeriesBinsCount(t *testing.T) {
	s := NewSeries(make([]int64, 1000))
	for _, tc := range []struct{ lo, hi, n, want int }{
		{0, 1000, 100, 100}, {0, 1000, 1000, 1000}, {0, 1000, 5000, 1000}, {0, 1000, 3, 3}, {10, 20, 4, 4}, {-5, 2000, 10, 10}, {5, 5, 10, 0},
	} {
		if got := len(s.Bins(tc.lo, tc.hi, tc.n)); got != tc.want {
			t.Errorf("Bins(%d, %d, %d): %d bins, want %d", tc.lo, tc.hi, tc.n, got, tc.want)
		}
	}
}

func randomLayout(t *testing.T, n int, seed uint64) *Layout {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	p := &workloads.Problem{Name: "random"}
	for i := 0; i < n; i++ {
		f := rng.IntN(200)
		p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: 1 + rng.Int64N(1<<uint(rng.IntN(16))), First: f, Last: f + rng.IntN(40)})
	}
	return planLayout(t, p)
}

// planLayout plans p with greedy-by-size and builds its layout.
func planLayout(t *testing.T, p *workloads.Problem) *Layout {
	t.Helper()
	s, err := strategies.Lookup("greedy-by-size")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewLayout("greedy-by-size", p, plan)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestQueryTotalsExact checks that at every zoom the drawn rectangles and
// the summed cells add up to the brute-force area of the buffers in the
// viewport, and that each cell holds exactly the area inside it.
func TestQueryTotalsExact(t *testing.T) {
	l := randomLayout(t, 3000, 1)
	fp := l.Plan.Footprint
	rng := rand.New(rand.NewPCG(3, 4))
	views := []Viewport{{0, int64(l.Tasks), 0, fp, 800, 400}, {0, int64(l.Tasks), 0, fp, 37, 11}}
	for k := 0; k < 40; k++ {
		t0 := rng.Int64N(int64(l.Tasks))
		a0 := rng.Int64N(fp)
		views = append(views, Viewport{t0, t0 + 1 + rng.Int64N(int64(l.Tasks)), a0, a0 + 1 + rng.Int64N(fp), 1 + rng.IntN(900), 1 + rng.IntN(500)})
	}
	for _, v := range views {
		got := l.Query(v)
		var want float64
		cols, rows := got.Cols, got.Rows
		cellWant := make([]float64, cols*rows)
		drawn := map[int]bool{}
		for _, r := range got.Rects {
			drawn[r.I] = true
		}
		for i, b := range l.Problem.Buffers {
			t0, t1 := max(int64(b.First), v.T0), min(int64(b.Last)+1, v.T1)
			a0, a1 := max(l.Plan.Offsets[i], v.A0), min(l.Plan.Offsets[i]+b.Size, v.A1)
			if t0 >= t1 || a0 >= a1 {
				continue
			}
			want += float64(t1-t0) * float64(a1-a0)
			if drawn[i] {
				continue
			}
			// Brute force: the overlap with every cell.
			for c := 0; c < cols; c++ {
				x0 := v.T0 + int64(c)*(v.T1-v.T0)/int64(cols)
				x1 := v.T0 + int64(c+1)*(v.T1-v.T0)/int64(cols)
				for r := 0; r < rows; r++ {
					y0 := v.A0 + int64(r)*(v.A1-v.A0)/int64(rows)
					y1 := v.A0 + int64(r+1)*(v.A1-v.A0)/int64(rows)
					if w, h := min(t1, x1)-max(t0, x0), min(a1, y1)-max(a0, y0); w > 0 && h > 0 {
						cellWant[r*cols+c] += float64(w) * float64(h)
					}
				}
			}
		}
		if got.Total != want {
			t.Fatalf("%+v: total %v, want %v", v, got.Total, want)
		}
		var cells float64
		for k, c := range got.Cells {
			if c != cellWant[k] {
				t.Fatalf("%+v: cell %d holds %v, want %v", v, k, c, cellWant[k])
			}
			cells += c
		}
		if got.Shown+cells != want {
			t.Fatalf("%+v: shown %v + cells %v != total %v", v, got.Shown, cells, want)
		}
		if len(got.Rects) > MaxRects {
			t.Fatalf("%d rects", len(got.Rects))
		}
	}
}

func TestQueryCapsRects(t *testing.T) {
	l := randomLayout(t, 600, 2)
	v := Viewport{0, int64(l.Tasks), 0, l.Plan.Footprint, MaxPx, MaxPx}
	const limit = 100
	all := l.Query(v)
	got := l.query(v, limit)
	if len(got.Rects) != limit || got.Hidden != all.Hidden+len(all.Rects)-limit || len(all.Rects) <= limit {
		t.Fatalf("%d rects, %d hidden (uncapped: %d, %d); want %d rects and the rest hidden", len(got.Rects), got.Hidden, len(all.Rects), all.Hidden, limit)
	}
	if got.Total != all.Total {
		t.Fatalf("total %v, uncapped %v", got.Total, all.Total)
	}
	// The largest are kept.
	minKept := got.Rects[0].Size * int64(got.Rects[0].Last-got.Rects[0].First+1)
	for _, r := range got.Rects {
		minKept = min(minKept, r.Size*int64(r.Last-r.First+1))
	}
	kept := map[int]bool{}
	for _, r := range got.Rects {
		kept[r.I] = true
	}
	for _, r := range all.Rects {
		i, b := r.I, l.Problem.Buffers[r.I]
		if !kept[i] && b.Size*int64(b.Last-b.First+1) > minKept {
			t.Fatalf("buffer %d (area %d) hidden while one of area %d is drawn", i, b.Size*int64(b.Last-b.First+1), minKept)
		}
	}
}

func TestLayoutProfileAndPeak(t *testing.T) {
	p := &workloads.Problem{Buffers: []workloads.Buffer{{ID: 0, Size: 10, First: 0, Last: 1}, {ID: 1, Size: 20, First: 1, Last: 2}, {ID: 2, Size: 5, First: 3, Last: 3}}}
	plan := &strategies.Plan{Offsets: []int64{0, 10, 0}, Footprint: 30}
	l, err := NewLayout("x", p, plan)
	if err != nil {
		t.Fatal(err)
	}
	if l.LBLoad != 30 || l.PeakTask != 1 || l.Tasks != 4 {
		t.Fatalf("LB %d peak %d tasks %d, want 30 1 4", l.LBLoad, l.PeakTask, l.Tasks)
	}
	want := []int64{10, 30, 20, 5}
	for i, w := range want {
		if l.Profile.At(i) != w {
			t.Fatalf("profile[%d] = %d, want %d", i, l.Profile.At(i), w)
		}
	}
	bad := &strategies.Plan{Offsets: []int64{0, 5, 0}, Footprint: 25}
	if _, err := NewLayout("x", p, bad); err == nil {
		t.Fatal("an overlapping plan was accepted")
	}
}

// TestStateAt checks the blocks live after each event against the trace.
func TestStateAt(t *testing.T) {
	tr := &workloads.Trace{Events: []workloads.Event{
		{Kind: workloads.Alloc, ID: 1, Size: 100},
		{Kind: workloads.Alloc, ID: 2, Size: 1000},
		{Kind: workloads.Free, ID: 1},
		{Kind: workloads.Alloc, ID: 3, Size: 10},
		{Kind: workloads.Free, ID: 2},
		{Kind: workloads.Free, ID: 3},
	}}
	f, err := allocators.Lookup("bfc")
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReplay(context.Background(), "bfc", f, tr)
	if err != nil {
		t.Fatal(err)
	}
	wantLive := [][]int{{1}, {1, 2}, {2}, {2, 3}, {3}, {}}
	wantInUse := []int64{100, 1100, 1000, 1010, 10, 0}
	for e, ids := range wantLive {
		s := r.StateAt(e)
		var got []int
		var inUse int64
		for _, b := range s.Blocks {
			got = append(got, b.ID)
			inUse += b.Size
			if b.Chunk < b.Size {
				t.Fatalf("event %d: block %d has chunk %d < size %d", e, b.ID, b.Chunk, b.Size)
			}
		}
		if len(got) != len(ids) || s.InUse != wantInUse[e] || inUse != s.InUse {
			t.Fatalf("event %d: live %v in use %d (blocks %d), want %v %d", e, got, s.InUse, inUse, ids, wantInUse[e])
		}
		if s.Rounding != s.Allocated-s.InUse || s.Cached != s.Reserved-s.Allocated || s.Cached < 0 {
			t.Fatalf("event %d: breakdown %+v does not add up", e, s)
		}
	}
	if r.Reserved.At(5) != r.Result.Final.Reserved {
		t.Fatalf("reserved at the end %d, allocator says %d", r.Reserved.At(5), r.Result.Final.Reserved)
	}
}

// TestLayoutSpaces draws a plan of two memory spaces stacked: the second
// space's buffers sit above the first space's footprint.
func TestLayoutSpaces(t *testing.T) {
	p := &workloads.Problem{
		Buffers:  []workloads.Buffer{{ID: 0, Size: 10, First: 0, Last: 1}, {ID: 1, Size: 20, First: 0, Last: 1}, {ID: 2, Size: 5, First: 1, Last: 2}},
		Spaces:   []int{0, 1, 0},
		Memories: []workloads.Memory{{Name: "dram"}, {Name: "sram"}},
	}
	l := planLayout(t, p)
	plan := l.Plan
	if len(plan.Footprints) != 2 || plan.Footprints[0] != 15 || plan.Footprints[1] != 20 {
		t.Fatalf("footprints %v, want [15 20]", plan.Footprints)
	}
	if l.Top() != 35 || l.SpaceBases[1] != 15 {
		t.Fatalf("top %d, bases %v; want 35 and [0 15]", l.Top(), l.SpaceBases)
	}
	tiles := l.Query(Viewport{0, 3, 0, 35, 300, 350})
	for _, r := range tiles.Rects {
		if r.I == 1 && r.Off != 15 {
			t.Fatalf("sram's buffer drawn at %d, want 15 (above dram's footprint)", r.Off)
		}
	}
	if len(tiles.Rects) != 3 {
		t.Fatalf("%d rects, want 3", len(tiles.Rects))
	}
}

func TestLiveSegments(t *testing.T) {
	evs := []workloads.SegmentEvent{{Size: 20, Event: 1}, {Size: 2, Event: 3}, {Free: true, Size: 20, Event: 5}, {Size: 8, Event: 5}}
	for _, tc := range []struct {
		e    int
		want []int64
	}{{0, []int64{4}}, {1, []int64{20, 4}}, {4, []int64{20, 4, 2}}, {5, []int64{8, 4, 2}}, {9, []int64{8, 4, 2}}} {
		got := liveSegments([]int64{4}, evs, tc.e)
		if !slices.Equal(got, tc.want) {
			t.Errorf("after event %d: %v, want %v", tc.e, got, tc.want)
		}
	}
}

// TestSweepNaN checks that a group whose ratios are undefined still
// encodes: JSON has no NaN.
func TestSweepNaN(t *testing.T) {
	recs := []results.Record{{Workload: "w", Subject: "s", Kind: "strategy", Status: "ok", Ratio: math.NaN(), TimesNs: []float64{1}}}
	sw := NewSweep("d", recs, nil)
	if _, err := json.Marshal(sw); err != nil {
		t.Fatalf("%v: %+v", err, sw.Rows)
	}
}
