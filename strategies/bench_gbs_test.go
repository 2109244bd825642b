package strategies

import (
	"context"
	"fmt"
	"math/rand/v2"
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

// BenchmarkGreedyBySizeLongLived plans equal-size long-lived buffers
// (gbsEqualLongLived, seed 1), on which greedy-by-size used to be cubic:
// "fast" is the planner, "reference" the plain form of TFLite's rules
// (gbsRefGreedyBySize) in the same process, at the smaller size only.
func BenchmarkGreedyBySizeLongLived(b *testing.B) {
	for _, n := range []int{2500, 10000} {
		bufs := gbsEqualLongLived(n, rand.New(rand.NewPCG(1, uint64(n))))
		b.Run(fmt.Sprintf("fast/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := greedyBySizeObjects(context.Background(), bufs); err != nil {
					b.Fatal(err)
				}
			}
		})
		if n <= 2500 {
			b.Run(fmt.Sprintf("reference/n=%d", n), func(b *testing.B) {
				for b.Loop() {
					gbsRefGreedyBySize(bufs)
				}
			})
		}
	}
}

// BenchmarkOffsetGreedyBySizeOverlap plans 10^5 heavily overlapping
// buffers (ogbsOverlap): "by-id" is the planner, "one-by-one" the same
// planner gathering the buffers that start inside a lifetime one by one
// and sorting them, as it did before compIDTree.
func BenchmarkOffsetGreedyBySizeOverlap(b *testing.B) {
	const n = 100_000
	bufs := ogbsOverlap(n, rand.New(rand.NewPCG(1, n)))
	for _, byID := range []bool{true, false} {
		name := "by-id"
		if !byID {
			name = "one-by-one"
		}
		b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := offsetGreedyBySizeRun(context.Background(), bufs, 1, byID); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
