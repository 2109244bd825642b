package strategies_test

import (
	"context"
	"fmt"
	"testing"

	"membench/strategies"
)

// BenchmarkFormsAbsent times planners on a random DAG without forms
// through the registry (Lookup: the size-type check, Problem.Forms and
// the forms dispatch) and through the planner itself (Unwrap), one after
// the other in one process: the cost of the problem forms where a problem
// has none, as far as the registry adds it.
func BenchmarkFormsAbsent(b *testing.B) {
	p := dag(10000)
	for _, name := range []string{"offset-greedy-by-size", "greedy-by-size", "tflite-arena", "tflm-greedy", "xla-heap", "naive"} {
		wrapped, err := strategies.Lookup(name)
		if err != nil {
			b.Fatal(err)
		}
		u, ok := wrapped.(interface{ Unwrap() strategies.Strategy })
		if !ok {
			b.Fatalf("%s: the registry's strategy has no Unwrap", name)
		}
		for _, v := range []struct {
			how string
			s   strategies.Strategy
		}{{"registry", wrapped}, {"planner", u.Unwrap()}} {
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
