package strategies_test

import (
	"fmt"
	"slices"
	"testing"

	"membench/workloads"
	"membench/workloads/synthetic"
)

// BenchmarkSizeTypes times TFLite's planners of textures and BHWC shapes
// (DESIGN §17), each on the size types memory_management.cc gives it a
// variant for, on synthetic.Textures feature maps (seed 1) of n = 1,000
// and 10,000 records; and greedy-in-order on byte sizes with a
// reallocation graph (reuseProblem), beside the same records without it.
func BenchmarkSizeTypes(b *testing.B) {
	t2, t3, bhwc := workloads.SizeTexture2D, workloads.SizeTexture3D, workloads.SizeBHWC
	for _, c := range []struct {
		strategy string
		types    []workloads.SizeType
	}{
		{"naive", []workloads.SizeType{t2, t3, bhwc}},
		{"equality", []workloads.SizeType{t2, t3, bhwc}},
		{"greedy-in-order", []workloads.SizeType{t2, t3}},
	} {
		for _, st := range c.types {
			for _, n := range []int{1_000, 10_000} {
				p := synthetic.Textures(synthetic.TexturesConfig{N: n, Seed: 1, Type: st})
				b.Run(fmt.Sprintf("%s/%s/n=%d", c.strategy, st, n), func(b *testing.B) { benchPlan(b, c.strategy, p) })
			}
		}
	}
	for _, n := range []int{1_000, 10_000} {
		p := reuseProblem(n)
		b.Run(fmt.Sprintf("greedy-in-order/bytes-reuse/n=%d", n), func(b *testing.B) { benchPlan(b, "greedy-in-order", p) })
		q := *p
		q.Reuse = nil
		b.Run(fmt.Sprintf("greedy-in-order/bytes/n=%d", n), func(b *testing.B) { benchPlan(b, "greedy-in-order", &q) })
	}
}

// reuseProblem returns the random DAG of n buffers (seed 1) with a
// reallocation graph in which each buffer may be reused, both ways, by
// the 128 buffers that start first after it ends: pairs that can share
// in time, as a real model's can. TFLite's graphs of real models
// (workloads.ReallocationGraph) name every later tensor of a chain, which
// grows with the square of its length, too large to build at these n.
func reuseProblem(n int) *workloads.Problem {
	p := *dag(n)
	byFirst := make([]int, n)
	for i := range byFirst {
		byFirst[i] = i
	}
	slices.SortStableFunc(byFirst, func(a, b int) int { return p.Buffers[a].First - p.Buffers[b].First })
	p.Reuse = make([][]int, n)
	for i, b := range p.Buffers {
		after, _ := slices.BinarySearchFunc(byFirst, b.Last+1, func(k, t int) int { return p.Buffers[k].First - t })
		for _, j := range byFirst[after:min(after+128, n)] {
			p.Reuse[i] = append(p.Reuse[i], j)
			p.Reuse[j] = append(p.Reuse[j], i)
		}
	}
	for i, l := range p.Reuse {
		slices.Sort(l)
		p.Reuse[i] = slices.Compact(l)
	}
	return &p
}
