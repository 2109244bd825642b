package strategies

import (
	"context"
	"fmt"
	"testing"

	"membench/workloads/synthetic"
)

// BenchmarkGreedyBySize plans the shared random DAGs (synthetic.DefaultDAG,
// seed 1, as BenchmarkStrategies); "long" makes 5% of the tensors live
// 65..1024 ops (instead of 0.5%), so that many more objects exist at once.
func BenchmarkGreedyBySize(b *testing.B) {
	for _, long := range []bool{false, true} {
		for _, n := range []int{1000, 5000, 20000} {
			cfg := synthetic.DefaultDAG(n, 1)
			name := fmt.Sprintf("n=%d", n)
			if long {
				cfg.LongPerMille = 50
				name = "long/" + name
			}
			bufs := synthetic.RandomDAG(cfg).Buffers
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					if _, _, err := greedyBySizeObjects(context.Background(), bufs); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
