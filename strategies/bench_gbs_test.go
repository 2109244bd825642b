package strategies

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkGreedyBySize plans random DAG-shaped problems like the fixtures'
// rand_* inputs; "wide" keeps 1% of the tensors alive for up to n tasks.
func BenchmarkGreedyBySize(b *testing.B) {
	for _, wide := range []bool{false, true} {
		for _, n := range []int{1000, 5000, 20000} {
			name := fmt.Sprintf("n=%d", n)
			if wide {
				name = "wide/" + name
			}
			b.Run(name, func(b *testing.B) {
				bufs := gbsRandomDAG(rand.New(rand.NewPCG(uint64(n), 3)), gbsShape{n: n, wide: wide})
				for b.Loop() {
					if _, _, err := greedyBySizeObjects(context.Background(), bufs); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
