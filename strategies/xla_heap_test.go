package strategies

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"membench/workloads"
	"membench/workloads/synthetic"
)

// refXLAHeapOrder is GlobalDecreasingSizeBestFitHeap's order by a plain
// comparison sort on XLA's keys: (-size, start-end, buffer) spatial,
// (start-end, -size, buffer) temporal.
func refXLAHeapOrder(bufs []workloads.Buffer, temporal bool) []int32 {
	order := inOrder(len(bufs))
	dur := func(i int32) int64 { return int64(bufs[i].First) - int64(bufs[i].Last) }
	size := func(i int32) int64 { return -bufs[i].Size }
	slices.SortFunc(order, func(x, y int32) int {
		if temporal {
			return cmp.Or(cmp.Compare(dur(x), dur(y)), cmp.Compare(size(x), size(y)), cmp.Compare(x, y))
		}
		return cmp.Or(cmp.Compare(size(x), size(y)), cmp.Compare(dur(x), dur(y)), cmp.Compare(x, y))
	})
	return order
}

// refXLAHeap is xla-heap the straightforward way: both runs in full with
// refPlaceOneByOne, and the spatial one unless the temporal heap is
// strictly smaller (ChooseBestHeapAlgorithm).
func refXLAHeap(bufs []workloads.Buffer, align int64, temporal []bool) ([]int64, int64) {
	align = max(align, 1)
	end := func(off, size int64) int64 { return AlignUp(off+size, align) }
	var best []int64
	var bestFP int64
	for k, t := range temporal {
		offs, fp := refPlaceOneByOne(bufs, refXLAHeapOrder(bufs, t), xlaHeapChoose(align), end)
		if k == 0 || fp < bestFP {
			best, bestFP = offs, fp
		}
	}
	return best, bestFP
}

// TestXLAHeapMatchesReference compares xla-heap, xla-heap-spatial and
// xla-heap-temporal with refXLAHeap on random problems of every shape
// randomGapProblem makes and on random DAGs, with and without alignment;
// it also checks that both ways of ending xla-heap occur (the spatial run
// wins, the temporal run wins).
func TestXLAHeapMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	type problem struct {
		name string
		p    *workloads.Problem
	}
	var problems []problem
	for _, shape := range []string{"sparse", "dense", "half", "point"} {
		for k := range 40 {
			n := 1 + rng.IntN(300)
			p := &workloads.Problem{Buffers: randomGapProblem(rng, n, shape), Alignment: []int64{0, 1, 8, 64, 3}[rng.IntN(5)]}
			problems = append(problems, problem{fmt.Sprintf("%s/%d/n=%d/align=%d", shape, k, n, p.Alignment), p})
		}
	}
	for seed := range int64(20) {
		n := 200 + rng.IntN(1500)
		problems = append(problems, problem{fmt.Sprintf("dag/seed=%d/n=%d", seed, n), synthetic.RandomDAG(synthetic.DefaultDAG(n, seed))})
	}
	wins := map[string]int{}
	for _, pr := range problems {
		for name, temporal := range map[string][]bool{
			"xla-heap": {false, true}, "xla-heap-spatial": {false}, "xla-heap-temporal": {true},
		} {
			plan := planOrFatal(t, name, pr.p)
			want, wantFP := refXLAHeap(pr.p.Buffers, pr.p.Alignment, temporal)
			if !slices.Equal(plan.Offsets, want) || plan.Footprint != wantFP {
				t.Fatalf("%s %s: offsets %v (footprint %d), want %v (footprint %d)", name, pr.name, plan.Offsets, plan.Footprint, want, wantFP)
			}
			if name == "xla-heap" {
				_, spatialFP := refXLAHeap(pr.p.Buffers, pr.p.Alignment, []bool{false})
				switch {
				case spatialFP == pr.p.LoadBound():
					wins["spatial at LB_load"]++
				case spatialFP == wantFP:
					wins["spatial above LB_load"]++
				default:
					wins["temporal"]++
				}
			}
		}
	}
	for _, w := range []string{"spatial at LB_load", "spatial above LB_load", "temporal"} {
		if wins[w] == 0 {
			t.Errorf("no problem where %s wins: %v", w, wins)
		}
	}
}

// TestLoadBoundMatchesWorkloads compares loadBound (and so
// taskSpans.loadBound) with workloads.LoadBound on random problems of
// every shape, empty and malformed ones among them.
func TestLoadBoundMatchesWorkloads(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for trial := range 400 {
		n := rng.IntN(200)
		bufs := randomGapProblem(rng, n, []string{"sparse", "dense", "half", "point"}[trial%4])
		if trial%5 == 0 {
			for i := range bufs {
				bufs[i].First -= n // negative tasks
			}
		}
		if trial%7 == 0 && n > 0 {
			k := rng.IntN(n)
			bufs[k].First, bufs[k].Last = bufs[k].Last+1, bufs[k].First // First after Last
		}
		if got, want := loadBound(bufs), workloads.LoadBound(bufs); got != want {
			t.Fatalf("trial %d (n %d): loadBound %d, want %d", trial, n, got, want)
		}
	}
	p := synthetic.RandomDAG(synthetic.DefaultDAG(5000, 1))
	if got, want := loadBound(p.Buffers), p.LoadBound(); got != want {
		t.Fatalf("random DAG: loadBound %d, want %d", got, want)
	}
}
