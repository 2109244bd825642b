package strategies

import (
	"context"
	"testing"

	"membench/workloads"
	_ "membench/workloads/fieldsets" // idealloc's instances
)

// BenchmarkXLAHeapFieldsets times xla-heap, xla-heap-spatial and
// xla-heap-temporal on idealloc's Y_1 and G_1, in one process: "by-id" is
// the planner, "one-by-one" the same planner gathering the placed buffers
// that start inside a lifetime one by one and sorting them, as it did
// before (xlaHeap.run without byID). The footprints must agree.
func BenchmarkXLAHeapFieldsets(b *testing.B) {
	ctx := context.Background()
	for _, w := range []string{"idealloc/y-1", "idealloc/g-1"} {
		info, ok := workloads.Lookup(w)
		if !ok {
			b.Fatalf("%s is not registered", w)
		}
		p, err := info.New(nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range xlaHeaps {
			fp := map[bool]int64{}
			for _, byID := range []bool{false, true} {
				impl := "by-id"
				if !byID {
					impl = "one-by-one"
				}
				b.Run(w+"/"+s.name+"/"+impl, func(b *testing.B) {
					var plan *Plan
					for b.Loop() {
						if plan, err = s.run(ctx, p, byID); err != nil {
							b.Fatal(err)
						}
					}
					fp[byID] = plan.Footprint
					b.ReportMetric(float64(plan.Footprint)/float64(p.LoadBound()), "footprint/lb")
				})
			}
			if len(fp) == 2 && fp[true] != fp[false] {
				b.Fatalf("%s %s: footprint %d by id, %d one by one", w, s.name, fp[true], fp[false])
			}
		}
	}
}
