package strategies

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"membench/workloads"
)

// tflmGreedyUpstream is GreedyMemoryPlanner's CalculateOffsetsIfNeeded
// and GetMaximumMemorySize (tensorflow/tflite-micro
// tensorflow/lite/micro/memory_planner/greedy_memory_planner.cc at
// 90b983c2b3f1480642e040bbd2ddb37b998f3424) written out step by step over
// sizes already rounded, with its arrays and offset-ordered linked list,
// as the reference the planner is checked against. fixed[i] < 0 is an
// online buffer (kOnlinePlannedBuffer).
func tflmGreedyUpstream(size []int64, first, last []int, fixed []int64) ([]int64, int64) {
	n := len(size)
	if n == 0 {
		return nil, 0
	}
	sorted := make([]int64, n)
	ids := make([]int, n)
	offsets := make([]int64, n)
	head, tail := 0, n
	for i := range n {
		if fixed[i] < 0 {
			tail--
			sorted[tail], ids[tail], offsets[i] = size[i], i, -1
		} else {
			sorted[head], ids[head], offsets[i] = size[i], i, fixed[i]
			head++
		}
	}
	// ReverseSortInPlace over the online part: a stable bubble sort,
	// largest first.
	for swapped := true; swapped; {
		swapped = false
		for i := head + 1; i < n; i++ {
			if sorted[i-1] < sorted[i] {
				sorted[i-1], sorted[i] = sorted[i], sorted[i-1]
				ids[i-1], ids[i] = ids[i], ids[i-1]
				swapped = true
			}
		}
	}
	type entry struct {
		offset int64
		req    int
		next   int
	}
	list := make([]entry, n)
	firstEntry := 0
	id := ids[0]
	if fixed[id] < 0 {
		offsets[id] = 0
	}
	list[0] = entry{offsets[id], id, -1}
	overlaps := func(e entry, f, l int) bool { return !(first[e.req] > l || f > last[e.req]) }
	nextActive := func(start int, f, l int) int { // -1: none; start -1: from the head
		c := firstEntry
		if start >= 0 {
			if list[start].next == -1 {
				return -1
			}
			c = list[start].next
		}
		for {
			if overlaps(list[c], f, l) {
				return c
			}
			if list[c].next == -1 {
				return -1
			}
			c = list[c].next
		}
	}
	for k := 1; k < n; k++ {
		id := ids[k]
		cand := int64(0)
		if fixed[id] < 0 {
			prior := -1
			for {
				next := nextActive(prior, first[id], last[id])
				if prior >= 0 {
					if e := list[prior].offset + size[list[prior].req]; e > cand {
						cand = e
					}
				}
				if next < 0 || list[next].offset-cand >= size[id] {
					break
				}
				prior = next
			}
		} else {
			cand = fixed[id]
		}
		offsets[id] = cand
		list[k] = entry{offset: cand, req: id}
		if list[firstEntry].offset > cand {
			list[k].next = firstEntry
			firstEntry = k
			continue
		}
		cur := firstEntry
		for {
			nx := list[cur].next
			if nx == -1 {
				list[cur].next, list[k].next = k, -1
				break
			}
			if list[nx].offset > cand {
				list[k].next, list[cur].next = list[cur].next, k
				break
			}
			cur = nx
		}
	}
	var arena int64
	for i := range n {
		arena = max(arena, offsets[i]+size[i])
	}
	return offsets, arena
}

// TestTFLMGreedyFixed: offline-planned buffers keep their offsets and are
// placed first; the others fit around them, as TFLite Micro's greedy
// planner does.
func TestTFLMGreedyFixed(t *testing.T) {
	// Worked by hand: fixed 0 at 100 and 2 at 0 first; then 1 (60, the
	// largest online) into the gap [30, 100); 3 (50) live with 1 and 2
	// goes on top at 90; 4 (20) live with 2 and 3 into [30, 90).
	p := &workloads.Problem{
		Buffers: []workloads.Buffer{
			{ID: 0, Size: 40, First: 0, Last: 1},
			{ID: 1, Size: 60, First: 0, Last: 2},
			{ID: 2, Size: 30, First: 1, Last: 3},
			{ID: 3, Size: 50, First: 2, Last: 3},
			{ID: 4, Size: 20, First: 3, Last: 3},
		},
		Fixed: []int64{100, -1, 0, -1, -1},
	}
	s, err := Lookup("tflm-greedy")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{100, 30, 0, 90, 30}; !slices.Equal(plan.Offsets, want) || plan.Footprint != 140 || plan.Arena != 0 {
		t.Errorf("got offsets %v footprint %d arena %d, want %v, 140, 0", plan.Offsets, plan.Footprint, plan.Arena, want)
	}
	// Alignment 16 rounds the sizes (48, 64, 32, 64, 32), not the offline
	// offsets. 3 and 1 tie at 64: the later, 3, goes first, on 2 at 32;
	// 1 no longer fits below 0 ([96, 100) is left) and goes to 148; 4
	// goes on 3 at 96.
	p.Alignment = 16
	plan, err = s.Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{100, 148, 0, 32, 96}; !slices.Equal(plan.Offsets, want) || plan.Arena != 212 {
		t.Errorf("alignment 16: got offsets %v arena %d, want %v, 212", plan.Offsets, plan.Arena, want)
	}
	// tflm-linear refuses fixed offsets.
	lin, _ := Lookup("tflm-linear")
	if _, err := lin.Plan(context.Background(), p); err == nil || err.Error() != "unsupported problem form: tflm-linear: fixed offsets are not supported" {
		t.Errorf("tflm-linear: %v", err)
	}
}

// TestTFLMGreedyFixedUpstream compares tflm-greedy with the step-by-step
// reference on random problems with and without offline offsets, at
// alignments 1 and 16.
func TestTFLMGreedyFixedUpstream(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 2))
	s, err := Lookup("tflm-greedy")
	if err != nil {
		t.Fatal(err)
	}
	for trial := range 600 {
		n := 1 + rng.IntN(24)
		p := &workloads.Problem{Alignment: []int64{1, 16}[trial%2]}
		fixed := make([]int64, n)
		anyFixed := false
		for i := range n {
			f := rng.IntN(8)
			p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: 1 + rng.Int64N(100), First: f, Last: f + rng.IntN(5)})
			fixed[i] = -1
			if trial%3 != 0 && rng.IntN(3) == 0 {
				fixed[i] = rng.Int64N(300)
				anyFixed = true
			}
		}
		if anyFixed {
			p.Fixed = fixed
		}
		size, first, last := make([]int64, n), make([]int, n), make([]int, n)
		for i, b := range p.Buffers {
			size[i], first[i], last[i] = AlignUp(b.Size, p.Alignment), b.First, b.Last
		}
		want, arena := tflmGreedyUpstream(size, first, last, fixed)
		plan, err := s.Plan(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(plan.Offsets, want) || max(plan.Arena, plan.Footprint) != arena {
			t.Fatalf("trial %d %+v fixed %v: got %v arena %d, upstream %v arena %d", trial, p.Buffers, fixed, plan.Offsets, plan.Arena, want, arena)
		}
	}
}
