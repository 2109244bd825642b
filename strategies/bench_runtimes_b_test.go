package strategies_test

import (
	"context"
	"fmt"
	"testing"

	"membench/strategies"
)

// runtimesB are the planners of TVM, ExecuTorch, MegEngine and MXNet,
// benchmarked beside offset-greedy-by-size, the reference they are
// measured against (DESIGN §9: none slower than 2x it at the same n, the
// hill climb aside).
var runtimesB = []string{
	"offset-greedy-by-size",
	"tvm-greedy-by-size", "tvm-greedy-by-conflicts", "tvm-hill-climb",
	"executorch-greedy", "executorch-naive",
	"megengine-pushdown",
	"mxnet-match-range",
}

// BenchmarkRuntimesB times each planner of runtimesB on the shared random
// DAGs (synthetic.DefaultDAG, seed 1) at n = 1,000 to 100,000; the last
// plan is validated. The planners of one n run side by side, so that their
// ratios to offset-greedy-by-size see the same machine load.
func BenchmarkRuntimesB(b *testing.B) {
	for _, n := range []int{1_000, 5_000, 20_000, 100_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for _, name := range runtimesB {
				b.Run(name, func(b *testing.B) {
					s, err := strategies.Lookup(name)
					if err != nil {
						b.Fatal(err)
					}
					p := dag(n)
					ctx := context.Background()
					var plan *strategies.Plan
					for b.Loop() {
						if plan, err = s.Plan(ctx, p); err != nil {
							b.Fatal(err)
						}
					}
					if err := strategies.Validate(p, plan); err != nil {
						b.Fatalf("invalid plan: %v", err)
					}
					b.ReportMetric(float64(plan.Footprint)/float64(p.LoadBound()), "footprint/lb")
				})
			}
		})
	}
}
