package telamalloc

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"membench/workloads"
)

// TestIndexPathSame plans random problems with the overlap graph as lists
// and through the index over time, and requires the same offsets.
func TestIndexPathSame(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	sizes := []int64{0, 1, 3, 8, 16, 17, 64}
	for trial := range 200 {
		n := 2 + r.IntN(50)
		span := 1 + r.IntN(30)
		p := &workloads.Problem{Name: "random", Alignment: int64(1 + r.IntN(2)*7)}
		for i := range n {
			f := r.IntN(span)
			p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: sizes[r.IntN(len(sizes))], First: f, Last: f + r.IntN(1+span/(1+r.IntN(4)))})
		}
		tl := tela{seed: uint64(trial), maxBT: []int{0, 5, 40, 10000}[trial%4]}
		plan := func(maxPairs int64) []int64 {
			tl.maxPairs = maxPairs
			pl, err := tl.Plan(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			return pl.Offsets
		}
		if a, b := plan(1<<40), plan(-1); !slices.Equal(a, b) {
			t.Fatalf("trial %d: lists %v, index %v", trial, a, b)
		}
	}
}
