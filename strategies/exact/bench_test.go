package exact_test

import (
	"context"
	"fmt"
	"testing"

	"membench/strategies"
	"membench/workloads"
	"membench/workloads/synthetic"
)

// BenchmarkMiniMalloc minimises MiniMalloc's challenging instances whose
// optimum is known (their LB_load) until it is proved, with a budget
// (60 s) that is not meant to end first; footprint, bound and optimal (1
// when proved) are reported per instance.
func BenchmarkMiniMalloc(b *testing.B) {
	for _, name := range []string{"A", "B", "C", "E", "F", "G", "H", "I", "K"} {
		b.Run(name, func(b *testing.B) {
			benchPlan(b, "exact?timeout=60s", minimalloc(b, name))
		})
	}
}

// BenchmarkMiniMallocCapacity asks MiniMalloc's own question of all 11
// instances: a plan within the capacity of 1,048,576 bytes. Where LB_load
// equals the capacity (A, B, E-I, K) the plan is optimal; the sum of the
// 11 times is the figure to compare with MiniMalloc's.
func BenchmarkMiniMallocCapacity(b *testing.B) {
	for _, name := range []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K"} {
		b.Run(name, func(b *testing.B) {
			benchPlan(b, "exact?timeout=60s&capacity=1048576", minimalloc(b, name))
		})
	}
}

// BenchmarkMiniMallocOpen runs the default 10 s budget on D and J, whose
// optimum is open, and reports the footprint and bound reached.
func BenchmarkMiniMallocOpen(b *testing.B) {
	for _, name := range []string{"D", "J"} {
		b.Run(name, func(b *testing.B) {
			benchPlan(b, "exact", minimalloc(b, name))
		})
	}
}

// BenchmarkSynthetic plans synthetic instances, among them the planted
// packing of adversarial-greedy.
func BenchmarkSynthetic(b *testing.B) {
	for _, spec := range []string{
		"synthetic/adversarial-greedy?n=1000&seed=1",
		"synthetic/random-intervals?n=200&seed=2",
		"synthetic/random-dag?n=5000&seed=1",
	} {
		b.Run(spec, func(b *testing.B) {
			w, err := workloads.Load(spec)
			if err != nil {
				b.Fatal(err)
			}
			benchPlan(b, "exact", w.Problem)
		})
	}
}

func benchPlan(b *testing.B, spec string, p *workloads.Problem) {
	s := lookup(b, spec)
	var plan *strategies.Plan
	for b.Loop() {
		var err error
		if plan, err = s.Plan(context.Background(), p); err != nil {
			b.Fatal(err)
		}
	}
	if err := strategies.Validate(p, plan); err != nil {
		b.Fatal(err)
	}
	opt := 0.0
	if plan.Optimal {
		opt = 1
	}
	b.ReportMetric(float64(plan.Footprint), "footprint")
	b.ReportMetric(float64(plan.Bound), "bound")
	b.ReportMetric(opt, "optimal")
}

// BenchmarkPlanted minimises the families with a planted perfect packing
// (optimum = LB_load = capacity) at n = 300 and 1,000, seed 1, and the
// ten seeds of adversarial-greedy at n = 1,000, each with the default
// budget; footprint, bound and optimal are reported per instance.
func BenchmarkPlanted(b *testing.B) {
	var specs []string
	for _, n := range []int{300, 1000} {
		for _, fam := range []string{"tiling", "pinwheel", "tiling-contention", "pinwheel-contention"} {
			for _, sizes := range synthetic.Distributions {
				specs = append(specs, fmt.Sprintf("synthetic/%s?n=%d&sizes=%s&seed=1", fam, n, sizes))
			}
		}
	}
	for seed := 1; seed <= 10; seed++ {
		specs = append(specs, fmt.Sprintf("synthetic/adversarial-greedy?n=1000&seed=%d", seed))
	}
	for _, spec := range specs {
		b.Run(spec, func(b *testing.B) {
			w, err := workloads.Load(spec)
			if err != nil {
				b.Fatal(err)
			}
			benchPlan(b, "exact", w.Problem)
		})
	}
}
