package strategies_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"membench/strategies"
)

// BenchmarkFormsAbsent times planners on a random DAG without forms
// through the registry (Lookup: the size-type check, Problem.Forms and
// the forms dispatch) and through the planner itself (Unwrap), one after
// the other in one process: the cost of the problem forms where a problem
// has none, as far as the registry adds it.
func BenchmarkFormsAbsent(b *testing.B) {
	p := dag(10000)
	for _, name := range formsAbsentPlanners {
		wrapped, bare := registryAndPlanner(b, name)
		for _, v := range []struct {
			how string
			s   strategies.Strategy
		}{{"registry", wrapped}, {"planner", bare}} {
			b.Run(fmt.Sprintf("%s/%s", name, v.how), func(b *testing.B) {
				ctx := context.Background()
				for b.Loop() {
					if _, err := v.s.Plan(ctx, p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkFormsAbsentPaired runs each planner through the registry and on
// its own in alternation, one of each per iteration (which goes first
// alternates too), and reports the median of the per-pair time ratios as
// registry/planner. A burst of load on a shared machine slows both runs
// of a pair alike, so the ratio stays readable where the times do not.
func BenchmarkFormsAbsentPaired(b *testing.B) {
	p := dag(2000)
	for _, name := range formsAbsentPlanners {
		wrapped, bare := registryAndPlanner(b, name)
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			run := func(s strategies.Strategy) time.Duration {
				// Each run starts from a collected heap, so that one
				// run's garbage is not collected on the other's time.
				runtime.GC()
				t0 := time.Now()
				if _, err := s.Plan(ctx, p); err != nil {
					b.Fatal(err)
				}
				return time.Since(t0)
			}
			var ratios []float64
			i := 0
			for b.Loop() {
				var reg, own time.Duration
				if i%2 == 0 {
					reg, own = run(wrapped), run(bare)
				} else {
					own, reg = run(bare), run(wrapped)
				}
				i++
				ratios = append(ratios, float64(reg)/float64(own))
			}
			slices.Sort(ratios)
			b.ReportMetric(ratios[len(ratios)/2], "registry/planner")
		})
	}
}

// formsAbsentPlanners are the planners whose run is set by the problem
// alone (no time budget), so two runs do the same work.
var formsAbsentPlanners = []string{
	"equality", "executorch-greedy", "executorch-naive", "greedy", "greedy-best",
	"greedy-by-breadth", "greedy-by-size", "greedy-in-order",
	"megengine-pushdown", "mxnet-match-range", "naive", "offset-greedy-by-size",
	"ort-mem-pattern", "tflite-arena", "tflm-greedy",
	"tvm-greedy-by-conflicts", "tvm-greedy-by-size", "xla-heap",
	"xla-heap-spatial", "xla-heap-temporal",
}

// registryAndPlanner returns the registry's strategy of that name and the
// planner it wraps.
func registryAndPlanner(b *testing.B, name string) (wrapped, bare strategies.Strategy) {
	wrapped, err := strategies.Lookup(name)
	if err != nil {
		b.Fatal(err)
	}
	u, ok := wrapped.(interface{ Unwrap() strategies.Strategy })
	if !ok {
		b.Fatalf("%s: the registry's strategy has no Unwrap", name)
	}
	return wrapped, u.Unwrap()
}
