package strategies

import (
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
		// Order X, Z, Y (equal sizes: reverse input order), W, V. X makes
		// object 0 (100); Z shares it at 0 (rule 1); Y sits above Z in it
		// at 40 (rule 2); W does not fit above Y (80+30 > 100): object 1
		// at 100; V does (80+20): at 80.
		{"executorch-greedy?alignment=1", p, []int64{0, 40, 0, 100, 80}, 130},
		// Without overlapping allocations Y, W and V each get an object.
		{"executorch-greedy?alignment=1&allow_overlapping_allocations=false", p, []int64{0, 100, 0, 140, 170}, 190},
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
	if _, err := Lookup("executorch-greedy?alignment=0"); err == nil || err.Error() != "executorch-greedy: parameter alignment=0: want a positive integer" {
		t.Errorf("alignment=0: error %v", err)
	}
}
