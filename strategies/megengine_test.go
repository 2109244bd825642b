package strategies

import (
	"slices"
	"testing"

	"membench/workloads"
)

// TestMegEngineUpstream reproduces the PUSHDOWN instances of MegEngine's
// src/core/test/static_mem_alloc.cpp that need no overwrite specs:
// BasicCorrectness.Alloc at alignments 1 and 2 and paddings 1 and 2,
// PushdownChain and PushdownConsistence (whose 500 runs check that every
// run gives the same total; membench's determinism check covers that).
func TestMegEngineUpstream(t *testing.T) {
	var doc struct {
		Cases []struct {
			Test     string     `json:"test"`
			Align    int64      `json:"align"`
			Padding  int64      `json:"padding"`
			Requests [][3]int64 `json:"requests"`
			Chain    int        `json:"chain"`
			Want     int64      `json:"want_tot_alloc"`
		} `json:"cases"`
	}
	readUpstream(t, "megengine_static_mem_alloc.json", &doc)
	if len(doc.Cases) != 6 {
		t.Fatalf("want 6 cases, got %d", len(doc.Cases))
	}
	for _, c := range doc.Cases {
		reqs := c.Requests
		for i := range c.Chain {
			reqs = append(reqs, [3]int64{int64(i), int64(i) + 2, int64(i) + 1}) // add(i, i+2, i+1)
		}
		p := &workloads.Problem{Alignment: c.Align}
		for i, r := range reqs {
			// [begin, end) is [First, Last]; padding joins the size.
			p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, First: int(r[0]), Last: int(r[1]) - 1, Size: r[2] + c.Padding})
		}
		plan := mustPlan(t, "megengine-pushdown", p)
		var tot int64
		for i, b := range p.Buffers {
			tot = max(tot, AlignUp(plan.Offsets[i]+b.Size, c.Align))
		}
		if tot != c.Want {
			t.Errorf("%s (align %d, padding %d): tot_alloc %d, want %d (offsets %v)", c.Test, c.Align, c.Padding, tot, c.Want, plan.Offsets)
		}
	}
}

// TestMegEngineGrowsChunk checks the rule that sets the pre-allocation
// apart from a plain best fit: 0: 10 [0,0] and 1: 20 [0,2] are stacked;
// when 0 is freed, 2: 30 [1,1] finds no free block of 30 bytes and grows
// the 10-byte block below 1 instead of going on top. Push down then puts
// 2 at 0 and lifts 1 to 30 (a best fit on top would need 60 bytes).
func TestMegEngineGrowsChunk(t *testing.T) {
	p := &workloads.Problem{Buffers: gbsRecs([3]int64{10, 0, 0}, [3]int64{20, 0, 2}, [3]int64{30, 1, 1})}
	plan := mustPlan(t, "megengine-pushdown", p)
	if want := []int64{0, 30, 0}; !slices.Equal(plan.Offsets, want) || plan.Footprint != 50 {
		t.Errorf("offsets %v footprint %d, want %v footprint 50", plan.Offsets, plan.Footprint, want)
	}
}

// TestMegEngineBestFitTies checks the free-block order: among free blocks
// of the same size, the one whose interval ends latest is taken.
// 0: 8 [0,3], 1: 8 [0,0], 2: 8 [0,3], 3: 8 [0,1], 4: 8 [0,3] stack in
// that order; 1 and 3 are freed (their blocks keep time ends 1 and 2);
// 5: 8 [2,3] takes 3's block (ends later), between 2 and 4.
func TestMegEngineBestFitTies(t *testing.T) {
	p := &workloads.Problem{Buffers: gbsRecs([3]int64{8, 0, 3}, [3]int64{8, 0, 0}, [3]int64{8, 0, 3}, [3]int64{8, 0, 1}, [3]int64{8, 0, 3}, [3]int64{8, 2, 3})}
	plan := mustPlan(t, "megengine-pushdown", p)
	if want := []int64{0, 8, 16, 24, 32, 24}; !slices.Equal(plan.Offsets, want) {
		t.Errorf("offsets %v, want %v", plan.Offsets, want)
	}
}
