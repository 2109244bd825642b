package strategies

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"membench/workloads"
)

// xlaHeaps are the three xla-heap planners by name, for calling run.
var xlaHeaps = []xlaHeap{
	{"xla-heap-spatial", []bool{false}},
	{"xla-heap-temporal", []bool{true}},
	{"xla-heap", []bool{false, true}},
}

// xlaByIDProblem returns n buffers of the given shape for comparing the
// index gathering by id ranges with the one gathering buffer by buffer:
// "sparse" (lifetimes of up to n/16 tasks, each holding tens of starts
// when n is in the thousands), "dense" (every lifetime contains task n),
// "long" (one buffer in eight lives n tasks, the rest a few) and "ties"
// (three sizes and a handful of lifetimes, so that the sort keys and the
// best fit's gap lengths tie often). A buffer in eight has size 0.
func xlaByIDProblem(rng *rand.Rand, n int, shape string) []workloads.Buffer {
	bufs := make([]workloads.Buffer, n)
	for i := range bufs {
		b := workloads.Buffer{ID: i, Size: 1 + rng.Int64N(1000)}
		switch shape {
		case "sparse":
			b.First = rng.IntN(2 * n)
			b.Last = b.First + rng.IntN(1+n/16)
		case "dense":
			b.First, b.Last = rng.IntN(n), n+rng.IntN(n)
		case "long":
			b.First = rng.IntN(2 * n)
			if i%8 == 0 {
				b.Last = b.First + n
			} else {
				b.Last = b.First + rng.IntN(4)
			}
		case "ties":
			b.Size = []int64{32, 64, 96}[rng.IntN(3)]
			b.First = []int{0, n / 3, 2 * n / 3}[rng.IntN(3)]
			b.Last = b.First + []int{0, 1, n / 3}[rng.IntN(3)]
		}
		if rng.IntN(8) == 0 {
			b.Size = 0
		}
		bufs[i] = b
	}
	return bufs
}

// TestXLAHeapByIDMatchesOneByOne compares xla-heap, xla-heap-spatial and
// xla-heap-temporal with the index gathering the placed buffers that start
// inside a lifetime by id ranges, and as registered, with the same
// planners gathering them one by one, as before, offset by offset, on
// random problems of every xlaByIDProblem shape, with and without
// alignment.
func TestXLAHeapByIDMatchesOneByOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 8))
	ctx := context.Background()
	for _, shape := range []string{"sparse", "dense", "long", "ties"} {
		for k := range 8 {
			n := 1 + rng.IntN(3000)
			p := &workloads.Problem{Buffers: xlaByIDProblem(rng, n, shape), Alignment: []int64{0, 1, 8, 64, 3}[k%5]}
			for _, s := range xlaHeaps {
				name := fmt.Sprintf("%s %s/%d/n=%d/align=%d", s.name, shape, k, n, p.Alignment)
				want, err := s.run(ctx, p, gatherOneByOne)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				byID, err := s.run(ctx, p, gatherByID)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				for how, got := range map[string]*Plan{"by id": byID, "as registered": planOrFatal(t, s.name, p)} {
					if !slices.Equal(got.Offsets, want.Offsets) || got.Footprint != want.Footprint {
						t.Fatalf("%s %s: offsets %v (footprint %d), want %v (footprint %d)", name, how, got.Offsets, got.Footprint, want.Offsets, want.Footprint)
					}
				}
			}
		}
	}
}
