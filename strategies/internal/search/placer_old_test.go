package search

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"membench/strategies/internal/cputime"
	"membench/strategies/internal/kernel"
	_ "membench/workloads/fieldsets" // idealloc/y-1
)

// decodeIndexedOld is decodeIndexed as it was before
// kernel.CompIndex.FirstFit: every buffer's overlapping components
// gathered and merged (CompIndex.Overlapping), then first fit over them.
// It is the reference for TestDecodeIndexedMatchesOld and the "old" side
// of BenchmarkDecodeY1.
func (d *Decoder) decodeIndexedOld(ctx context.Context, order []int32, offsets []int64) (int64, error) {
	var comps []kernel.Comp
	return d.decodeWith(ctx, order, offsets, math.MaxInt64, func(ix *kernel.CompIndex, t *kernel.Task, size, align int64) int64 {
		comps = ix.Overlapping(comps[:0], t)
		return kernel.FirstFit(comps, size, align)
	})
}

// TestDecodeIndexedMatchesOld decodes random orders of random problems
// through the index, lazily (decodeIndexed) and by merging every
// buffer's components (decodeIndexedOld), and requires the same offsets
// and peak: sparse problems (short lifetimes), dense ones (long
// lifetimes, most buffers live together) and problems big enough for the
// id tree's kept nodes, with zero sizes, alignments and pins.
func TestDecodeIndexedMatchesOld(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(20, 20))
	for trial := range 300 {
		n := 1 + r.IntN(60)
		span := 1 + r.IntN(40)
		if trial%4 == 3 {
			n = 200 + r.IntN(800)
			span = 20 + r.IntN(400)
		}
		dense := trial%2 == 1
		if dense {
			span = 1 + span/8 // lifetimes reach over most of it
		}
		p := randomPlacerProblem(r, n, span, trial%3 == 0)
		pl, err := newPlacer(ctx, "t", p, -1)
		if err != nil {
			t.Fatal(err)
		}
		order := kernel.InOrder(n)
		for range 3 {
			r.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
			a, b := slices.Clone(pl.pin), slices.Clone(pl.pin)
			pa, err := pl.dec.decodeIndexedOld(ctx, order, a)
			if err != nil {
				t.Fatal(err)
			}
			pb, err := pl.dec.decodeIndexed(ctx, order, b, math.MaxInt64)
			if err != nil {
				t.Fatal(err)
			}
			if pa != pb || !slices.Equal(a, b) {
				t.Fatalf("trial %d (n %d, dense %v): order %v:\nold %d %v\nnew %d %v", trial, n, dense, order, pa, a, pb, b)
			}
		}
	}
}

// BenchmarkDecodeY1 is the A/B benchmark of one first-fit decode of
// idealloc's Y_1 (62,185 buffers; random-search and the other OmniMalloc
// searches decode it once a trial) through the index: "old" merges each
// buffer's overlapping components (decodeIndexedOld), "nohints" walks
// them lazily from 0 (kernel.CompIndex.FirstFit without CoarseHints),
// "new" is the Placer's decode (lazily from the coarse hint), each with a
// Decoder of its own, in one process, on the same shuffled order
// (random-search's first, seed 42). The peaks must agree. Besides wall
// time it reports the process's CPU time a decode (cpu-ns/op), steadier
// on a loaded machine.
//
//	go test ./strategies/internal/search -run '^$' -bench DecodeY1 -benchmem -count 5
func BenchmarkDecodeY1(b *testing.B) {
	ctx := context.Background()
	pl := y1Placer(b)
	order := kernel.InOrder(pl.Len())
	NewPyRandom(42).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	// noHints returns a Decoder whose index gives no coarse hints.
	noHints := func() *Decoder {
		d := pl.NewDecoder()
		d.ix = pl.proto.EmptyCopy()
		d.ix.GatherByID()
		return d
	}
	old, lazy, hinted := noHints(), noHints(), pl.NewDecoder()
	peaks := map[string]int64{}
	for _, v := range []struct {
		name   string
		decode func(context.Context, []int32, []int64) (int64, error)
	}{{"old", old.decodeIndexedOld}, {"nohints", func(ctx context.Context, order []int32, offsets []int64) (int64, error) {
		return lazy.decodeIndexed(ctx, order, offsets, math.MaxInt64)
	}}, {"new", func(ctx context.Context, order []int32, offsets []int64) (int64, error) {
		return hinted.decodeIndexed(ctx, order, offsets, math.MaxInt64)
	}}} {
		b.Run(v.name, func(b *testing.B) {
			offsets := make([]int64, pl.Len())
			cpu := cputime.Process()
			for b.Loop() {
				copy(offsets, pl.pin)
				peak, err := v.decode(ctx, order, offsets)
				if err != nil {
					b.Fatal(err)
				}
				peaks[v.name] = peak
			}
			b.ReportMetric(float64(cputime.Process()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
	for name, peak := range peaks {
		if peak != peaks["new"] {
			b.Fatalf("peaks differ: %s %d, new %d", name, peak, peaks["new"])
		}
	}
}
