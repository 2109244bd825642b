package strategies

import (
	"slices"
	"testing"

	"membench/workloads"
)

// TestMXNetRules checks MXNet's request and release rules on problems
// worked by hand (apache/mxnet has no unit test of the planner with
// expected values). Buffers are {size, first, last}.
func TestMXNetRules(t *testing.T) {
	rec := func(rs ...[3]int64) *workloads.Problem { return &workloads.Problem{Buffers: gbsRecs(rs...)} }
	// t0: 0 (100) -> obj 0, 1 (50) -> obj 1; both released (unread).
	// t1: 3 (2000) first: nothing >= 2000, 100 < 2000/16 -> obj 2; then
	// 2 (60) takes obj 0 (100 <= 960). Released: obj 0, obj 2.
	// t2: 4 (30000): obj 2 (2000 >= 30000/16) grows to 30000; 5 (1): obj 1
	// (50) is above 1*16 and nothing is below 1 -> obj 3.
	// t3: 7 before 6 (equal sizes: later buffer first): 7 takes obj 0
	// (100); 6 finds obj 2 too large (30000 > 1600) and grows obj 1 (50).
	// t4: 8 (100) takes obj 0, released by 7 at t3.
	a := rec([3]int64{100, 0, 0}, [3]int64{50, 0, 0}, [3]int64{60, 1, 1}, [3]int64{2000, 1, 1}, [3]int64{30000, 2, 2},
		[3]int64{1, 2, 2}, [3]int64{100, 3, 4}, [3]int64{100, 3, 3}, [3]int64{100, 4, 4})
	// Equal free sizes: obj 1 (buffer 0) is released at t0, obj 0 (buffer
	// 1) at t1. Looking up (>= s) takes the first released, looking down
	// (< s) the last released.
	up := rec([3]int64{64, 0, 0}, [3]int64{64, 0, 1}, [3]int64{64, 2, 2}, [3]int64{32, 2, 2})
	down := rec([3]int64{64, 0, 0}, [3]int64{64, 0, 1}, [3]int64{64, 2, 2}, [3]int64{128, 2, 2})
	// At t1 the input 1 ([0,1], obj 0) is released before the unread
	// output 0 ([1,1], obj 1), though 0 comes first in buffer order; at t2
	// buffer 3 goes first and takes obj 0.
	inputsFirst := rec([3]int64{10, 1, 1}, [3]int64{10, 0, 1}, [3]int64{10, 2, 2}, [3]int64{10, 2, 2})
	cases := []struct {
		name, spec string
		p          *workloads.Problem
		ids        []int
		sizes      []int64
	}{
		{"rules", "mxnet-match-range", a, []int{0, 1, 0, 2, 2, 3, 1, 0, 0}, []int64{100, 100, 30000, 1}},
		{"no-reuse", "mxnet-match-range?match_range=0", a, []int{0, 1, 3, 2, 4, 5, 7, 6, 8}, []int64{100, 50, 2000, 60, 30000, 1, 100, 100, 100}},
		{"tie-up", "mxnet-match-range", up, []int{1, 0, 1, 0}, []int64{64, 64}},
		{"tie-down", "mxnet-match-range", down, []int{1, 0, 1, 0}, []int64{128, 64}},
		{"inputs-first", "mxnet-match-range", inputsFirst, []int{1, 0, 1, 0}, []int64{10, 10}},
		// k = 2: 100 bytes free, a request of 40 looks up to 80 only and
		// down from 20: a new object.
		{"range", "mxnet-match-range?match_range=2", rec([3]int64{100, 0, 0}, [3]int64{40, 1, 1}), []int{0, 1}, []int64{100, 40}},
		// Zero-size outputs (plan_memory.cc requests them like any other):
		// 1 takes the free 0-byte obj 0; 2 (8 bytes) finds nothing at or
		// above 8 and grows obj 0 (0 >= 8/16); 3 (0 bytes) looks at sizes
		// in [0, 0] only: a new obj 1.
		{"zero-size", "mxnet-match-range", rec([3]int64{0, 0, 0}, [3]int64{0, 1, 1}, [3]int64{8, 2, 2}, [3]int64{0, 3, 3}), []int{0, 0, 0, 1}, []int64{8, 0}},
	}
	for _, c := range cases {
		plan := mustPlan(t, c.spec, c.p)
		if !slices.Equal(plan.ObjectIDs, c.ids) || !slices.Equal(plan.ObjectSizes, c.sizes) {
			t.Errorf("%s: object ids %v sizes %v, want %v %v", c.name, plan.ObjectIDs, plan.ObjectSizes, c.ids, c.sizes)
		}
	}
	if _, err := Lookup("mxnet-match-range?match_range=-1"); err == nil || err.Error() != "mxnet-match-range: parameter match_range=-1: want a non-negative integer" {
		t.Errorf("match_range=-1: error %v", err)
	}
}
