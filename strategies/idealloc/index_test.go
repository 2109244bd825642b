package idealloc

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"membench/workloads"
)

// TestIndexPathSame plans random problems with the interference graph
// and through the index over time, and requires the same plans.
func TestIndexPathSame(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 4))
	sizes := []int64{0, 1, 3, 8, 16, 17, 64, 4096}
	for trial := range 150 {
		n := 2 + r.IntN(80)
		span := 1 + r.IntN(40)
		p := &workloads.Problem{Name: "random", Alignment: int64(1 + r.IntN(2)*7)}
		for i := range n {
			f := r.IntN(span)
			size := sizes[r.IntN(len(sizes))]
			if trial%5 == 0 {
				size = 8 // one size: the colouring path
			}
			p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: size, First: f, Last: f + r.IntN(1+span/(1+r.IntN(4)))})
		}
		ia := ideal{frag: 1, lives: 1 + trial%3, seed: uint64(trial)}
		plan := func(maxPairs int64) ([]int64, int64) {
			ia.maxPairs = maxPairs
			pl, err := ia.Plan(context.Background(), p)
			if err != nil {
				t.Fatalf("trial %d: %v", trial, err)
			}
			return pl.Offsets, pl.Arena
		}
		a, aa := plan(1 << 40)
		b, ba := plan(-1)
		if !slices.Equal(a, b) || aa != ba {
			t.Fatalf("trial %d: graph %v (arena %d), index %v (arena %d)", trial, a, aa, b, ba)
		}
	}
}
