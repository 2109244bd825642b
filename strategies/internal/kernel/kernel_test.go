package kernel

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"membench/workloads"
)

// TestCompSet adds random ranges to a compSet and checks, after each add,
// that it holds what MergeComp gives on one flat list, that every block's
// longest gap is right, and that the spans gapSpans gives leave the same
// gaps at least some length long as the flat list, and the same top.
func TestCompSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 20 {
		var s compSet
		var flat []Comp
		span := int64(100 + rng.IntN(20000))
		for k := range 1000 {
			lo := rng.Int64N(span)
			c := Comp{lo, lo + rng.Int64N(1+span/200)}
			s.add(c)
			flat = MergeComp(flat, c)
			if got := s.appendTo(nil); !slices.Equal(got, flat) {
				t.Fatalf("trial %d, add %d of %v: set %v, want %v", trial, k, c, got, flat)
			}
			for b, bl := range s.blocks {
				want := bl.maxGap
				bl.setMaxGap()
				if bl.maxGap != want || len(bl.c) == 0 || len(bl.c) > 2*compBlockSize {
					t.Fatalf("trial %d, add %d: block %d has %d ranges, longest gap %d recorded, %d true",
						trial, k, b, len(bl.c), want, bl.maxGap)
				}
			}
			minLen := 1 + rng.Int64N(1+span/50)
			w, ref := NewGapWalk(s.gapSpans(nil, minLen)), NewGapWalk(flat)
			for {
				var start, end, rs, re int64
				var ok, rok bool
				for {
					if start, end, ok = w.Next(); !ok || end-start >= minLen {
						break
					}
				}
				for {
					if rs, re, rok = ref.Next(); !rok || re-rs >= minLen {
						break
					}
				}
				if start != rs || end != re || ok != rok {
					t.Fatalf("trial %d, add %d, min %d: gap [%d,%d) %v, want [%d,%d) %v", trial, k, minLen, start, end, ok, rs, re, rok)
				}
				if !ok {
					break
				}
			}
			if w.Top != ref.Top {
				t.Fatalf("trial %d, add %d: top %d, want %d", trial, k, w.Top, ref.Top)
			}
		}
		if len(s.blocks) < 2 {
			t.Errorf("trial %d: %d block(s): the test meant to cross blocks", trial, len(s.blocks))
		}
	}
}

// TestCompIDTreeGather checks that the components gathered for a range of
// ids cover exactly the placed ranges of those ids, each node's run
// sorted.
func TestCompIDTreeGather(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	covered := func(cs []Comp) []bool {
		at := make([]bool, 2200)
		for _, c := range cs {
			for x := c.Lo; x < c.Hi; x++ {
				at[x] = true
			}
		}
		return at
	}
	for trial := range 100 {
		n := 1 + rng.IntN(300)
		tree := newCompIDTree(int32(n))
		placed := make([]Comp, n)
		for id := range placed {
			placed[id].Lo = -1
		}
		// Rounds of placing some buffers, then gathering some ranges.
		order := rng.Perm(n)
		for len(order) > 0 {
			k := 1 + rng.IntN(len(order))
			for _, id := range order[:k] {
				lo := rng.Int64N(2000)
				placed[id] = Comp{lo, lo + 1 + rng.Int64N(100)}
				tree.place(int32(id), placed[id])
			}
			order = order[k:]
			for range 3 {
				lo := int32(rng.IntN(n + 1))
				hi := lo + int32(rng.IntN(n-int(lo)+1))
				comps, runs, start := tree.gather(nil, nil, placed, lo, hi)
				for k, r := range runs {
					end := start
					if k+1 < len(runs) {
						end = int(runs[k+1])
					}
					if !slices.IsSortedFunc(comps[r:end], func(a, b Comp) int { return cmp.Compare(a.Lo, b.Lo) }) {
						t.Fatalf("trial %d: run %d not sorted: %v", trial, k, comps[r:end])
					}
				}
				if got, want := covered(comps), covered(appendPlaced(nil, placed[lo:hi])); !slices.Equal(got, want) {
					t.Fatalf("trial %d: ids [%d, %d) of %d: gathered %v, placed %v", trial, lo, hi, n, comps, placed[lo:hi])
				}
			}
		}
	}
}

// TestGatherByIDPays checks the rule's threshold: k buffers live over
// tasks 0..64 and one buffer at each of tasks 1..64, so k*64 buffers start
// inside a lifetime after its first task, over k+64 buffers; by id pays
// from k*64 >= compIDLeaf*(k+64), k = 64 on.
func TestGatherByIDPays(t *testing.T) {
	for _, c := range []struct {
		k    int
		want bool
	}{{0, false}, {1, false}, {63, false}, {64, true}, {200, true}} {
		var bufs []workloads.Buffer
		for range c.k {
			bufs = append(bufs, workloads.Buffer{ID: len(bufs), Size: 1, First: 0, Last: 64})
		}
		for task := 1; task <= 64; task++ {
			bufs = append(bufs, workloads.Buffer{ID: len(bufs), Size: 1, First: task, Last: task})
		}
		if got := NewTaskSpans(bufs, false).GatherByIDPays(); got != c.want {
			t.Errorf("k = %d: GatherByIDPays() = %v, want %v", c.k, got, c.want)
		}
	}
}

// TestGapWalk checks the gaps between spans, the empty gap where a span
// starts right at the top, no gap below an overlapped span, and the top.
func TestGapWalk(t *testing.T) {
	spans := []Comp{{Lo: 0, Hi: 10}, {Lo: 10, Hi: 20}, {Lo: 15, Hi: 18}, {Lo: 30, Hi: 40}, {Lo: 35, Hi: 60}, {Lo: 64, Hi: 70}}
	type gap struct{ start, end int64 }
	var got []gap
	w := NewGapWalk(spans)
	for {
		s, e, ok := w.Next()
		if !ok {
			break
		}
		got = append(got, gap{s, e})
	}
	want := []gap{{0, 0}, {10, 10}, {20, 30}, {60, 64}}
	if !slices.Equal(got, want) || w.Top != 70 {
		t.Errorf("gaps %v, top %d; want %v, top 70", got, w.Top, want)
	}
	if w := NewGapWalk(nil); w.Top != 0 {
		t.Errorf("empty walk top %d, want 0", w.Top)
	}
}

func TestFirstAndBestFit(t *testing.T) {
	// Gaps: [20,30) (10), [60,64) (4), [70,100) (30); top 120.
	spans := []Comp{{Lo: 0, Hi: 20}, {Lo: 30, Hi: 60}, {Lo: 64, Hi: 70}, {Lo: 100, Hi: 120}}
	for _, tc := range []struct {
		size, align int64
		first, best int64
		bestLen     int64
		bestFound   bool
	}{
		{size: 4, align: 1, first: 20, best: 60, bestLen: 4, bestFound: true},
		{size: 5, align: 1, first: 20, best: 20, bestLen: 10, bestFound: true},
		{size: 11, align: 1, first: 70, best: 70, bestLen: 30, bestFound: true},
		// Aligned to 16: [20,30) starts at 32 and holds nothing; [60,64) at 64.
		{size: 4, align: 16, first: 80, best: 80, bestLen: 30, bestFound: true},
		{size: 31, align: 1, first: 120, best: 0, bestLen: 1<<63 - 1, bestFound: false},
	} {
		if got := FirstFit(spans, tc.size, tc.align); got != tc.first {
			t.Errorf("FirstFit(size %d, align %d) = %d, want %d", tc.size, tc.align, got, tc.first)
		}
		off, length, found, top := BestFit(spans, tc.size, tc.align)
		if off != tc.best || length != tc.bestLen || found != tc.bestFound || top != 120 {
			t.Errorf("BestFit(size %d, align %d) = %d, %d, %v, %d; want %d, %d, %v, 120",
				tc.size, tc.align, off, length, found, top, tc.best, tc.bestLen, tc.bestFound)
		}
	}
	// Equal gaps: the lowest wins.
	if off, _, _, _ := BestFit([]Comp{{Lo: 10, Hi: 20}, {Lo: 30, Hi: 40}}, 10, 1); off != 0 {
		t.Errorf("BestFit among equal gaps = %d, want 0", off)
	}
}

// TestRadixSort checks the sort against a stable comparison sort, with
// negative, equal and wide keys.
func TestRadixSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 3, 100, 5000} {
		for _, spread := range []int64{1, 300, 1 << 40, math.MaxInt64} {
			in := make([]Keyed, n)
			for i := range in {
				in[i] = Keyed{Key: rng.Int64N(spread) - rng.Int64N(spread)/2, I: int32(i)}
			}
			want := slices.Clone(in)
			slices.SortStableFunc(want, func(a, b Keyed) int { return cmp.Compare(a.Key, b.Key) })
			if got := RadixSort(slices.Clone(in), make([]Keyed, n)); !slices.Equal(got, want) {
				t.Fatalf("n=%d spread=%d: RadixSort = %v, want %v", n, spread, got[:min(n, 10)], want[:min(n, 10)])
			}
		}
	}
}

func TestBestGap(t *testing.T) {
	tests := []struct {
		name  string
		items []Comp // spans in TFLite's list order
		size  int64
		want  int64
	}{
		{"nothing placed", nil, 10, 0},
		{"no gap: above the highest end", []Comp{{Lo: 0, Hi: 10}, {Lo: 10, Hi: 30}}, 5, 30},
		{"gap below the first tensor", []Comp{{Lo: 20, Hi: 30}}, 20, 0},
		{"gap too small", []Comp{{Lo: 19, Hi: 30}}, 20, 30},
		{"smallest fitting gap wins over a lower one",
			[]Comp{{Lo: 30, Hi: 40}, {Lo: 50, Hi: 60}, {Lo: 70, Hi: 80}}, 10, 40},
		{"equal gaps: lowest address",
			[]Comp{{Lo: 10, Hi: 20}, {Lo: 30, Hi: 40}, {Lo: 50, Hi: 60}}, 10, 0},
		{"a tensor under the running end opens no gap",
			[]Comp{{Lo: 0, Hi: 100}, {Lo: 10, Hi: 20}, {Lo: 120, Hi: 130}}, 15, 100},
		{"zero size takes the first zero-length gap",
			[]Comp{{Lo: 5, Hi: 10}, {Lo: 10, Hi: 20}}, 0, 10},
		{"zero-size tensors split a gap",
			[]Comp{{Lo: 10, Hi: 10}, {Lo: 30, Hi: 40}}, 20, 10},
		{"aligned ends set the gap start",
			[]Comp{{Lo: 0, Hi: 128}, {Lo: 256, Hi: 384}}, 100, 128},
		{"huge sizes", []Comp{{Lo: 0, Hi: 1 << 41}, {Lo: 3 << 40, Hi: 4 << 40}}, 1 << 40, 1 << 41},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := BestGap(tc.items, tc.size, 1); got != tc.want {
				t.Errorf("BestGap = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestOrders checks BySizeDescending and ByFirst against a stable
// comparison sort, sizes and tasks at the ends of their ranges included.
func TestOrders(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pick := []int64{math.MinInt64, -1, 0, 1, 7, math.MaxInt64}
	for trial := range 200 {
		n := rng.IntN(200)
		bufs := make([]workloads.Buffer, n)
		for i := range bufs {
			bufs[i] = workloads.Buffer{ID: i, Size: rng.Int64N(20), First: rng.IntN(10) - 5}
			if rng.IntN(8) == 0 {
				bufs[i].Size = pick[rng.IntN(len(pick))]
				bufs[i].First = int(pick[rng.IntN(len(pick))])
			}
		}
		bySize, byFirst := InOrder(n), InOrder(n)
		slices.SortStableFunc(bySize, func(x, y int32) int { return cmp.Compare(bufs[y].Size, bufs[x].Size) })
		slices.SortStableFunc(byFirst, func(x, y int32) int { return cmp.Compare(bufs[x].First, bufs[y].First) })
		if got := BySizeDescending(bufs); !slices.Equal(got, bySize) {
			t.Fatalf("trial %d: BySizeDescending %v, want %v", trial, got, bySize)
		}
		if got := ByFirst(bufs); !slices.Equal(got, byFirst) {
			t.Fatalf("trial %d: ByFirst %v, want %v", trial, got, byFirst)
		}
	}
}

// TestConflictPairs counts against every pair tested one by one.
func TestConflictPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := r.IntN(40)
		span := 1 + r.IntN(20)
		bufs := make([]workloads.Buffer, n)
		for i := range bufs {
			f := r.IntN(span)
			bufs[i] = workloads.Buffer{ID: i, First: f, Last: f + r.IntN(span)}
		}
		var want int64
		for i := range bufs {
			for j := range i {
				if workloads.Conflicts(bufs[i], bufs[j]) {
					want++
				}
			}
		}
		if got := ConflictPairs(bufs); got != want {
			t.Fatalf("trial %d: %d pairs, want %d (%v)", trial, got, want, bufs)
		}
	}
}

// TestCompIndexReset places random buffers in an index, resets it, places
// others, and requires what a fresh index holding only those gives, with
// and without gathering by id.
func TestCompIndexReset(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 7))
	for trial := range 60 {
		n := 1 + rng.IntN(200)
		bufs := make([]workloads.Buffer, n)
		for i := range bufs {
			f := rng.IntN(40)
			bufs[i] = workloads.Buffer{ID: i, First: f, Last: f + rng.IntN(1+rng.IntN(40)), Size: rng.Int64N(50)}
		}
		ts := NewTaskSpans(bufs, false)
		tasks := make([]Task, n)
		for i, b := range bufs {
			tasks[i] = ts.TaskOf(i, b.Size)
		}
		place := func(ix *CompIndex, seed uint64) {
			r := rand.New(rand.NewPCG(seed, 1))
			for _, i := range r.Perm(n)[:r.IntN(n+1)] {
				lo := r.Int64N(500)
				ix.Place(&tasks[i], Comp{lo, lo + bufs[i].Size})
			}
		}
		reused := NewCompIndex(ts)
		if trial%2 == 1 {
			reused.GatherByID()
		}
		for round := range 3 {
			reused.Reset()
			fresh := reused.EmptyCopy()
			place(reused, uint64(trial*10+round))
			place(fresh, uint64(trial*10+round))
			for i := range n {
				got := slices.Clone(reused.Overlapping(nil, &tasks[i]))
				want := fresh.Overlapping(nil, &tasks[i])
				if !slices.Equal(got, want) {
					t.Fatalf("trial %d round %d buffer %d: %v after Reset, want %v", trial, round, i, got, want)
				}
				if reused.CoversAll(tasks[i].A, tasks[i].B) != fresh.CoversAll(tasks[i].A, tasks[i].B) {
					t.Fatalf("trial %d round %d buffer %d: CoversAll differs after Reset", trial, round, i)
				}
			}
		}
	}
}
