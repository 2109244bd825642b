package strategies

import (
	"context"
	"slices"
	"testing"

	"membench/workloads"
)

// TestExecuTorchUpstreamMultiplePools reproduces test_multiple_pools of
// exir/tests/test_memory_planning.py: per memory pool, the multiset of
// offsets and the buffer size, for greedy and naive at alignment 1.
func TestExecuTorchUpstreamMultiplePools(t *testing.T) {
	var doc struct {
		Alignment int64 `json:"alignment"`
		Pools     []struct {
			MemID   int     `json:"mem_id"`
			Tensors [][]any `json:"tensors"`
			Want    map[string]struct {
				Offsets []int64 `json:"offsets"`
				Bufsize int64   `json:"bufsize"`
			} `json:"want"`
		} `json:"pools"`
	}
	readUpstream(t, "executorch_memory_planning.json", &doc)
	if len(doc.Pools) != 2 || doc.Alignment != 1 {
		t.Fatalf("want 2 pools at alignment 1, got %d at %d", len(doc.Pools), doc.Alignment)
	}
	for _, pool := range doc.Pools {
		p := &workloads.Problem{}
		for i, tn := range pool.Tensors {
			p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: int64(tn[1].(float64)), First: int(tn[2].(float64)), Last: int(tn[3].(float64))})
		}
		for _, algo := range []string{"greedy", "naive"} {
			want := pool.Want[algo]
			plan := mustPlan(t, "executorch-"+algo+"?alignment=1", p)
			got := slices.Sorted(slices.Values(plan.Offsets))
			if !slices.Equal(got, want.Offsets) || plan.Footprint != want.Bufsize {
				t.Errorf("mem_id %d, %s: offsets %v (sorted %v), footprint %d; want offsets %v, bufsize %d",
					pool.MemID, algo, plan.Offsets, got, plan.Footprint, want.Offsets, want.Bufsize)
			}
		}
	}
}

// TestExecuTorchRules checks greedy's rules on a problem worked by hand.
// Buffers (size, first, last): X 100 [0,0], Y 40 [1,3], Z 40 [2,4],
// W 30 [3,3], V 20 [3,3].
func TestExecuTorchRules(t *testing.T) {
	p := &workloads.Problem{Buffers: gbsRecs([3]int64{100, 0, 0}, [3]int64{40, 1, 3}, [3]int64{40, 2, 4}, [3]int64{30, 3, 3}, [3]int64{20, 3, 3})}
	cases := []struct {
		spec string
		p    *workloads.Problem
		want []int64
		fp   int64
	}{
		// Sort keys (sizes rounded to 16) 112, 48, 48, 32, 32: order X, Z,
		// Y, V, W (equal keys: reverse input order). X makes object 0
		// (100); Z shares it at 0 (rule 1); Y sits above Z in it at 40
		// (rule 2); so does V (80+20 <= 100), at 80; W does not fit above
		// V: object 1 at 100.
		{"executorch-greedy?alignment=1", p, []int64{0, 40, 0, 100, 80}, 130},
		// Without overlapping allocations Y, V and W each get an object.
		{"executorch-greedy?alignment=1&allow_overlapping_allocations=false", p, []int64{0, 100, 0, 160, 140}, 190},
		// Default alignment 16: sizes 112, 48, 48, 32, 32. X; Z@0; Y@48
		// (96 <= 112); V (32s in reverse order: V before W) does not fit
		// above Y (96+32 > 112): object 1 at 112; W: object 2 at 144.
		{"executorch-greedy", p, []int64{0, 48, 0, 144, 112}, 174},
		{"executorch-naive", p, []int64{0, 112, 160, 208, 240}, 260},
		{"executorch-naive?alignment=1", p, []int64{0, 100, 140, 180, 210}, 230},
		// Problem alignment 24 and ExecuTorch's 16: sizes round to 48s.
		{"executorch-naive", &workloads.Problem{Alignment: 24, Buffers: p.Buffers}, []int64{0, 144, 192, 240, 288}, 308},
	}
	for _, c := range cases {
		plan := mustPlan(t, c.spec, c.p)
		if !slices.Equal(plan.Offsets, c.want) || plan.Footprint != c.fp {
			t.Errorf("%s: offsets %v footprint %d, want %v footprint %d", c.spec, plan.Offsets, plan.Footprint, c.want, c.fp)
		}
	}
	// At alignment 1 the sort still reads sizes rounded to 16: 12 and 10
	// tie and go in reverse input order, 10 first (a strict size order
	// would give [0 12]).
	tie := &workloads.Problem{Buffers: gbsRecs([3]int64{12, 0, 0}, [3]int64{10, 0, 0})}
	if got := mustPlan(t, "executorch-greedy?alignment=1", tie).Offsets; !slices.Equal(got, []int64{10, 0}) {
		t.Errorf("16-byte tie: offsets %v, want [10 0]", got)
	}
	// ... and where the smaller one's object is free for the larger,
	// ExecuTorch's assertion fails (10 starts later, so it comes later in
	// input order and first in the reversed tie).
	s, _ := Lookup("executorch-greedy?alignment=1")
	_, err := s.Plan(context.Background(), &workloads.Problem{Buffers: gbsRecs([3]int64{12, 0, 0}, [3]int64{10, 1, 1})})
	if want := `executorch-greedy: buffer 0 (id 0, 12 bytes) comes after a smaller one of the same 16-byte size and fits no free object: ExecuTorch fails here too (assertion "Allocation specs are not sorted"); use an alignment that is a multiple of 16`; err == nil || err.Error() != want {
		t.Errorf("unsorted: error %v, want %s", err, want)
	}
	if _, err := Lookup("executorch-greedy?alignment=0"); err == nil || err.Error() != "executorch-greedy: parameter alignment=0: want a positive integer" {
		t.Errorf("alignment=0: error %v", err)
	}
}

// TestExecuTorchInputOrder: apply_algo hands the planners the specs in
// graph order, which is by first task, whatever the problem's order.
// Rows {size, first, last}: b0 16 [1,1], b1 16 [0,1]; input order b1, b0.
func TestExecuTorchInputOrder(t *testing.T) {
	p := &workloads.Problem{Buffers: gbsRecs([3]int64{16, 1, 1}, [3]int64{16, 0, 1})}
	for _, c := range []struct {
		spec string
		want []int64
	}{
		// Equal keys in reverse input order: b0 opens object 0; b1 meets
		// it and finds no room above it (16+16 > 16): object 1 at 16. In
		// reverse problem order it would be [16 0].
		{"executorch-greedy", []int64{0, 16}},
		// Back to back in input order: b1, then b0. In problem order
		// [0 16].
		{"executorch-naive", []int64{16, 0}},
	} {
		if got := mustPlan(t, c.spec, p).Offsets; !slices.Equal(got, c.want) {
			t.Errorf("%s: offsets %v, want %v", c.spec, got, c.want)
		}
	}
}
