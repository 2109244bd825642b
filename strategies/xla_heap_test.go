package strategies

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"membench/strategies/internal/kernel"
	"membench/workloads"
	"membench/workloads/synthetic"
)

// refXLAHeapTicks replays HeapSimulator::RunComputation literally: the
// values sorted by (first, last, buffer); for each task from the earliest
// to the latest, the Allocs of the values defined there, then the Frees
// of those last used there, both lists in sorted order, the heap taking
// one tick per call of a sized buffer.
func refXLAHeapTicks(bufs []workloads.Buffer) [][2]int64 {
	values := kernel.InOrder(len(bufs))
	slices.SortFunc(values, func(x, y int32) int {
		return cmp.Or(cmp.Compare(bufs[x].First, bufs[y].First), cmp.Compare(bufs[x].Last, bufs[y].Last), cmp.Compare(x, y))
	})
	defined, freed := map[int][]int32{}, map[int][]int32{}
	lo, hi := 0, -1
	for k, i := range values {
		b := bufs[i]
		defined[b.First] = append(defined[b.First], i)
		freed[b.Last] = append(freed[b.Last], i)
		if k == 0 || b.First < lo {
			lo = b.First
		}
		hi = max(hi, b.Last)
	}
	ticks := make([][2]int64, len(bufs))
	var now int64
	call := func(i int32, which int) {
		if bufs[i].Size == 0 {
			return
		}
		ticks[i][which] = now
		now++
	}
	for t := lo; t <= hi && len(bufs) > 0; t++ {
		for _, i := range defined[t] {
			call(i, 0)
		}
		for _, i := range freed[t] {
			call(i, 1)
		}
	}
	return ticks
}

// refXLAHeapOrder is GlobalDecreasingSizeBestFitHeap's order by a plain
// comparison sort on XLA's keys: (-size, start-end, buffer) spatial,
// (start-end, -size, buffer) temporal, start and end being ticks.
func refXLAHeapOrder(bufs []workloads.Buffer, temporal bool) []int32 {
	order := kernel.InOrder(len(bufs))
	ticks := refXLAHeapTicks(bufs)
	dur := func(i int32) int64 { return ticks[i][0] - ticks[i][1] }
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

// TestXLAHeapCallTicks: XLA's sort keys measure a buffer's life in heap
// calls (one tick per Alloc or Free, RunComputation's order), not in
// tasks. Each case was worked by hand from heap_simulator.cc; rows are
// {size, first, last}.
func TestXLAHeapCallTicks(t *testing.T) {
	for _, c := range []struct {
		name     string
		strategy string
		rows     [][3]int64
		want     []int64
	}{
		// Issue 17 item 5. Values by (first, last, buffer): b1, b0. Task
		// 0: Alloc b1 (tick 0). Task 1: Alloc b0 (1), Free b1 (2), Free b0
		// (3). Both live 2 ticks, so the buffer id breaks the tie: b0 at
		// 0. By tasks b1 lives longer and would go first: [5 0].
		{"issue", "xla-heap-spatial", [][3]int64{{5, 1, 1}, {5, 0, 1}}, []int64{0, 5}},
		{"issue", "xla-heap-temporal", [][3]int64{{5, 1, 1}, {5, 0, 1}}, []int64{0, 5}},
		{"issue", "xla-heap", [][3]int64{{5, 1, 1}, {5, 0, 1}}, []int64{0, 5}},
		// A zero-size buffer takes no tick. Had b2's Alloc (task 0, first
		// in value order) and Free ticked, b1 would live [1, 4] and b0 [3,
		// 5], and b1 would go first: [5 0 0].
		{"zero-size-no-tick", "xla-heap-spatial", [][3]int64{{5, 1, 1}, {5, 0, 1}, {0, 0, 0}}, []int64{0, 5, 0}},
		// Ticks: task 2 Alloc b1 (0), Alloc b2 (1), Free b1 (2); task 3
		// Alloc b0 (3), Free b2 (4); task 5 Free b0 (5). Durations b0 2,
		// b1 2, b2 3. Temporal order b2, b1 (size 3 > 2), b0: b2 at 0,
		// b1 (meets b2 at task 2) at 4, b0 (meets b2 at task 3 only) at
		// 4; heap 7. By tasks (b0 2, b2 1, b1 0) it is b0 at 0, b2 at 2,
		// b1 at 6; heap 9.
		{"temporal", "xla-heap-temporal", [][3]int64{{2, 3, 5}, {3, 2, 2}, {4, 2, 3}}, []int64{4, 4, 0}},
		// Ticks: b1 [0, 2], b2 [1, 4], b3 [3, 6], b0 [5, 7]. Spatial
		// order among the size-3 buffers b2 (3 ticks), b0, b1 (2 each, by
		// id), then b3: b2 at 0, b0 (no conflict) at 0, b1 (meets b2) at
		// 3, b3 (meets b2 and b0) at 3; heap 6. By tasks b0 goes first
		// (2 tasks): [0 0 3 6], heap 7.
		{"spatial", "xla-heap-spatial", [][3]int64{{3, 3, 5}, {3, 0, 1}, {3, 1, 2}, {1, 2, 4}}, []int64{0, 3, 0, 3}},
	} {
		p := &workloads.Problem{Buffers: gbsRecs(c.rows...)}
		if got := planOrFatal(t, c.strategy, p).Offsets; !slices.Equal(got, c.want) {
			t.Errorf("%s %s: offsets %v, want %v", c.name, c.strategy, got, c.want)
		}
	}
}
