package strategies

import (
	"fmt"
	"testing"

	"membench/workloads"
	"membench/workloads/synthetic"
)

// BenchmarkReference times the literal transcriptions of TFLite's code kept
// in the tests (the exactness references) on the same random DAGs as
// BenchmarkStrategies, so that speedups are measured against a baseline
// run in the same process.
func BenchmarkReference(b *testing.B) {
	refs := []struct {
		name    string
		maxN    int
		objects func([]workloads.Buffer) ([]int, []int64)
	}{
		{"greedy-by-size", 20000, gbsRefGreedyBySize},
		{"greedy-by-breadth", 20000, refGreedyByBreadth},
		{"greedy-in-order", 20000, refGreedyInOrder},
		{"equality", 20000, refEquality},
		{"min-cost-flow", 1000, refMinCostFlow},
	}
	for _, r := range refs {
		b.Run(r.name, func(b *testing.B) {
			for _, n := range []int{1000, 5000, 20000} {
				if n > r.maxN {
					continue
				}
				bufs := synthetic.RandomDAG(synthetic.DefaultDAG(n, 1)).Buffers
				b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
					for b.Loop() {
						r.objects(bufs)
					}
				})
			}
		})
	}
	b.Run("offset-greedy-by-size", func(b *testing.B) {
		for _, n := range []int{1000, 5000, 20000} {
			bufs := synthetic.RandomDAG(synthetic.DefaultDAG(n, 1)).Buffers
			b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
				for b.Loop() {
					refOffsetGreedyBySize(bufs, 1)
				}
			})
		}
	})
}
