package strategies

import (
	"context"
	"testing"

	"membench/workloads"
	_ "membench/workloads/fieldsets" // idealloc's instances
	"membench/workloads/synthetic"
)

// BenchmarkXLAHeapFieldsets times xla-heap, xla-heap-spatial and
// xla-heap-temporal on idealloc's Y_1 and G_1 and on a random DAG of
// 20,000 buffers (few starts inside each lifetime), in one process:
// "planner" is the planner as registered, "one-by-one" the same planner
// gathering the placed buffers that start inside a lifetime one by one and
// sorting them, as it did before, and "by-id" gathering them by id ranges
// whether it pays or not. The footprints must agree.
func BenchmarkXLAHeapFieldsets(b *testing.B) {
	ctx := context.Background()
	for _, w := range []string{"idealloc/y-1", "idealloc/g-1", "random-dag"} {
		var p *workloads.Problem
		if w == "random-dag" {
			p = synthetic.RandomDAG(synthetic.DefaultDAG(20_000, 1))
		} else {
			info, ok := workloads.Lookup(w)
			if !ok {
				b.Fatalf("%s is not registered", w)
			}
			var err error
			if p, err = info.New(nil); err != nil {
				b.Fatal(err)
			}
		}
		for _, s := range xlaHeaps {
			fp := map[gathering]int64{}
			for _, g := range []gathering{gatherOneByOne, gatherAuto, gatherByID} {
				impl := map[gathering]string{gatherOneByOne: "one-by-one", gatherAuto: "planner", gatherByID: "by-id"}[g]
				b.Run(w+"/"+s.name+"/"+impl, func(b *testing.B) {
					var plan *Plan
					var err error
					for b.Loop() {
						if plan, err = s.run(ctx, p, g); err != nil {
							b.Fatal(err)
						}
					}
					fp[g] = plan.Footprint
					b.ReportMetric(float64(plan.Footprint)/float64(p.LoadBound()), "footprint/lb")
				})
			}
			for g, f := range fp {
				if f != fp[gatherOneByOne] {
					b.Fatalf("%s %s: footprint %d gathering %d, %d one by one", w, s.name, f, g, fp[gatherOneByOne])
				}
			}
		}
	}
}
