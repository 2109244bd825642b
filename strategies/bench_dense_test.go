package strategies_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"membench/strategies"
	"membench/workloads"
)

// denseSkip lists the strategies BenchmarkDense leaves out: they have
// their own budgets (min-cost-flow is about n^3.8 in TFLite).
var denseSkip = map[string]bool{
	"min-cost-flow":  true,
	"tvm-hill-climb": true,
	"exact":          true,
	// An example in example_test.go, not a planner.
	"example-first-fit": true,
}

// denseProblem returns n buffers all live at once, with random sizes
// (seed 1): "point" puts every buffer at task 0; "overlap" gives each its
// own lifetime, all of which contain task n.
func denseProblem(n int, shape string) *workloads.Problem {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	p := &workloads.Problem{Name: fmt.Sprintf("dense-%s-%d", shape, n), Buffers: make([]workloads.Buffer, n)}
	for i := range p.Buffers {
		b := workloads.Buffer{ID: i, Size: 1 + rng.Int64N(1<<20)}
		if shape == "overlap" {
			b.First, b.Last = rng.IntN(n), n+rng.IntN(n)
		}
		p.Buffers[i] = b
	}
	return p
}

// BenchmarkDense times every strategy on dense problems, where every
// buffer conflicts with every other: the worst case of the planners that
// compare a buffer with the buffers live beside it. The plan of the last
// iteration is validated.
func BenchmarkDense(b *testing.B) {
	for _, shape := range []string{"point", "overlap"} {
		for _, n := range []int{10_000, 100_000} {
			p := denseProblem(n, shape)
			for _, info := range strategies.All() {
				if info.Kind == strategies.External || denseSkip[info.Name] {
					continue
				}
				b.Run(fmt.Sprintf("%s/%s/n=%d", info.Name, shape, n), func(b *testing.B) {
					s, err := strategies.Lookup(info.Name)
					if err != nil {
						b.Fatal(err)
					}
					var plan *strategies.Plan
					for b.Loop() {
						if plan, err = s.Plan(context.Background(), p); err != nil {
							b.Fatal(err)
						}
					}
					if err := strategies.Validate(p, plan); err != nil {
						b.Fatalf("invalid plan: %v", err)
					}
				})
			}
		}
	}
}
