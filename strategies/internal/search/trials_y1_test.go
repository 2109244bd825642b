package search

import (
	"context"
	"math"
	"testing"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

// BenchmarkTrialsY1 decodes random search's first 12 trials of idealloc's
// Y_1 (seed 42) as its loop does, each stopped once its peak reaches the
// best before it (PlaceBelow), and reports how many of the buffers the
// stopped trials decoded: the least share (min-decoded) and the mean
// (mean-decoded). An early stop saves only the rest of a decode.
//
//	go test ./strategies/internal/search -run '^$' -bench TrialsY1 -benchtime 1x
func BenchmarkTrialsY1(b *testing.B) {
	ctx := context.Background()
	pl := y1Placer(b)
	n := pl.Len()
	for b.Loop() {
		order := kernel.InOrder(n)
		rng := NewPyRandom(DefaultSeed)
		offsets := make([]int64, n)
		best := int64(math.MaxInt64)
		least, sum, stopped := 1.0, 0.0, 0
		for range 12 {
			rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
			peak, err := pl.PlaceBelow(ctx, order, offsets, best)
			if err != nil {
				b.Fatal(err)
			}
			if peak < best {
				best = peak
				continue
			}
			decoded := 0
			for _, o := range offsets { // Y_1 has no pins: -1 is not reached
				if o >= 0 {
					decoded++
				}
			}
			share := float64(decoded) / float64(n)
			least, sum, stopped = min(least, share), sum+share, stopped+1
		}
		if stopped > 0 {
			b.ReportMetric(least, "min-decoded")
			b.ReportMetric(sum/float64(stopped), "mean-decoded")
		}
	}
}

// y1Placer builds a Placer for idealloc's Y_1, shared by the Y_1
// benchmarks.
func y1Placer(b *testing.B) *Placer {
	b.Helper()
	info, ok := workloads.Lookup("idealloc/y-1")
	if !ok {
		b.Fatal("idealloc/y-1 is not registered")
	}
	p, err := info.New(nil)
	if err != nil {
		b.Fatal(err)
	}
	pl, err := NewPlacer(context.Background(), "bench", p)
	if err != nil {
		b.Fatal(err)
	}
	return pl
}
