package search

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

// randomPlacerProblem draws n buffers over span tasks: sizes from sizes
// (zero included, so zero-size barriers occur), some with alignments of
// their own, and with pins, a few fixed buffers that never collide.
func randomPlacerProblem(r *rand.Rand, n, span int, pins bool) *workloads.Problem {
	p := &workloads.Problem{Name: "random", Alignment: int64(1 + r.IntN(2)*3)}
	sizes := []int64{0, 1, 3, 8, 16, 17, 64, 100}
	for i := range n {
		f := r.IntN(span)
		l := f + r.IntN(1+span/(1+r.IntN(4)))
		p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: sizes[r.IntN(len(sizes))], First: f, Last: l})
	}
	if r.IntN(2) == 0 {
		p.Aligns = make([]int64, n)
		for i := range p.Aligns {
			p.Aligns[i] = []int64{0, 0, 1, 4, 8}[r.IntN(5)]
		}
	}
	if pins {
		// Pins stacked at distinct heights never overlap.
		p.Fixed = make([]int64, n)
		var top int64 = 1000
		for i := range p.Fixed {
			p.Fixed[i] = workloads.NoOffset
			if r.IntN(6) == 0 {
				p.Fixed[i] = top
				top += p.Buffers[i].Size + int64(r.IntN(5))
			}
		}
	}
	return p
}

// randomPlacers draws a problem as randomPlacerProblem does and returns
// Placers over it on both paths: with conflict lists and through the
// index over time.
func randomPlacers(t *testing.T, r *rand.Rand, n, span int, pins bool) (lists, index *Placer) {
	t.Helper()
	p := randomPlacerProblem(r, n, span, pins)
	lists, err := newPlacer(context.Background(), "t", p, 1<<40)
	if err != nil {
		t.Fatal(err)
	}
	if index, err = newPlacer(context.Background(), "t", p, -1); err != nil {
		t.Fatal(err)
	}
	if lists.deg != nil || index.deg == nil {
		t.Fatal("paths not as forced")
	}
	return lists, index
}

// TestPlacerPathsAgree decodes random orders with conflict lists and
// through the index over time and requires the same offsets, degrees,
// conflicts and earlier neighbours: the two paths are one rule. On both,
// PlaceBelow must agree with Place (checkPlaceBelow).
func TestPlacerPathsAgree(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 11))
	for trial := range 400 {
		n := 1 + r.IntN(60)
		lists, index := randomPlacers(t, r, n, 1+r.IntN(40), trial%3 == 0)
		for i := range n {
			if a, b := lists.Degree(i), index.Degree(i); a != b {
				t.Fatalf("trial %d: degree of %d: lists %d, index %d", trial, i, a, b)
			}
			if a, b := slices.Sorted(slices.Values(lists.Conflicts(i))), index.Conflicts(i); !slices.Equal(a, b) {
				t.Fatalf("trial %d: conflicts of %d: lists %v, index %v", trial, i, a, b)
			}
		}
		order := make([]int32, n)
		for i := range order {
			order[i] = int32(i)
		}
		for range 4 {
			r.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
			a, b := make([]int64, n), make([]int64, n)
			pa, err := lists.Place(ctx, order, a)
			if err != nil {
				t.Fatal(err)
			}
			pb, err := index.Place(ctx, order, b)
			if err != nil {
				t.Fatal(err)
			}
			if pa != pb || !slices.Equal(a, b) {
				t.Fatalf("trial %d: order %v:\nlists %d %v\nindex %d %v", trial, order, pa, a, pb, b)
			}
			// A decode from a later position keeps the prefix.
			from := r.IntN(n)
			next := slices.Clone(order)
			r.Shuffle(n-from, func(i, j int) { next[from+i], next[from+j] = next[from+j], next[from+i] })
			ca, cb := make([]int64, n), make([]int64, n)
			qa, _ := lists.PlaceFrom(ctx, next, from, a, ca)
			qb, _ := index.PlaceFrom(ctx, next, from, b, cb)
			if qa != qb || !slices.Equal(ca, cb) {
				t.Fatalf("trial %d: PlaceFrom %d: lists %v, index %v", trial, from, ca, cb)
			}
			checkPlaceBelow(t, lists, order, trial)
			checkPlaceBelow(t, index, order, trial)
			target := r.IntN(n)
			if x, y := lists.earlierNeighbours(order, target, nil), index.earlierNeighbours(order, target, nil); !slices.Equal(x, y) {
				t.Fatalf("trial %d: earlier neighbours of %d: lists %v, index %v", trial, target, x, y)
			}
		}
	}
}

// TestPlacerPinsCollide: both paths refuse the same colliding pins.
func TestPlacerPinsCollide(t *testing.T) {
	p := &workloads.Problem{Buffers: []workloads.Buffer{
		{ID: 0, Size: 8, First: 0, Last: 3}, {ID: 1, Size: 8, First: 5, Last: 6}, {ID: 2, Size: 8, First: 2, Last: 5},
	}, Fixed: []int64{0, 4, 4}}
	want := "t: buffers 0 and 2 have fixed offsets 0 and 4 that overlap while both are live"
	for _, max := range []int64{1 << 40, -1} {
		if _, err := newPlacer(context.Background(), "t", p, max); err == nil || err.Error() != want {
			t.Errorf("maxPairs %d: err %v, want %q", max, err, want)
		}
	}
}

// checkPlaceBelow decodes order with bounds around the peak Place finds:
// below the bound PlaceBelow must give Place's offsets and peak;
// otherwise it reports a peak at least the bound, and Place's peak must
// be at least the bound too.
func checkPlaceBelow(t *testing.T, pl *Placer, order []int32, trial int) {
	t.Helper()
	ctx := context.Background()
	want := make([]int64, len(order))
	peak, err := pl.Place(ctx, order, want)
	if err != nil {
		t.Fatal(err)
	}
	for _, bound := range []int64{0, 1, peak / 2, peak - 1, peak, peak + 1, peak + 100} {
		got := make([]int64, len(order))
		below, err := pl.PlaceBelow(ctx, order, got, bound)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case below < bound && (below != peak || !slices.Equal(got, want)):
			t.Fatalf("trial %d, lists %v, bound %d: PlaceBelow %d %v, Place %d %v", trial, pl.deg == nil, bound, below, got, peak, want)
		case below >= bound && peak < bound:
			t.Fatalf("trial %d, lists %v, bound %d: PlaceBelow stopped at %d, Place's peak is %d", trial, pl.deg == nil, bound, below, peak)
		}
	}
}

// TestDecodersConcurrent decodes random orders in goroutines at once, each
// with a Decoder of its own over one Placer (conflict lists and index
// paths), and requires each plan to be what the Placer's own Place gives:
// decoders share nothing they write (run it with -race). Each decoder
// decodes several orders, so its index is emptied and reused.
func TestDecodersConcurrent(t *testing.T) {
	ctx, r := context.Background(), rand.New(rand.NewPCG(3, 9))
	for trial := range 40 {
		n := 1 + (trial*37)%300
		lists, index := randomPlacers(t, r, n, 1+r.IntN(60), trial%3 == 0)
		for _, pl := range []*Placer{lists, index} {
			const workers, each = 4, 3
			orders := make([][]int32, workers*each)
			want := make([][]int64, len(orders))
			for k := range orders {
				orders[k] = kernel.InOrder(n)
				r.Shuffle(n, func(i, j int) { orders[k][i], orders[k][j] = orders[k][j], orders[k][i] })
				want[k] = make([]int64, n)
				if _, err := pl.Place(ctx, orders[k], want[k]); err != nil {
					t.Fatal(err)
				}
			}
			got := make([][]int64, len(orders))
			var wg sync.WaitGroup
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					dec := pl.NewDecoder()
					for k := w; k < len(orders); k += workers {
						got[k] = make([]int64, n)
						if _, err := dec.PlaceBelow(ctx, orders[k], got[k], math.MaxInt64); err != nil {
							panic(err)
						}
					}
				}()
			}
			wg.Wait()
			for k := range orders {
				if !slices.Equal(got[k], want[k]) {
					t.Fatalf("trial %d, index path %v, order %d: offsets %v, want %v", trial, pl.deg != nil, k, got[k], want[k])
				}
			}
		}
	}
}
