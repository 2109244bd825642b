package strategies

import (
	"context"
	"slices"
	"testing"

	"membench/workloads"
)

// TestMegEngineUpstream reproduces the PUSHDOWN instances of MegEngine's
// src/core/test/static_mem_alloc.cpp that need no overwrite specs:
// BasicCorrectness.Alloc at alignments 1 and 2 and paddings 1 and 2,
// PushdownChain and PushdownConsistence (whose 500 runs check that every
// run gives the same total; membench's determinism check covers that).
// Like those tests it calls the allocator directly, in their add order.
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
		offs, err := megenginePushdownOffsets(context.Background(), p.Buffers, max(c.Align, 1))
		if err != nil {
			t.Fatal(err)
		}
		if tot := megengineTotAlloc(p.Buffers, offs, c.Align); tot != c.Want {
			t.Errorf("%s (align %d, padding %d): tot_alloc %d, want %d (offsets %v)", c.Test, c.Align, c.Padding, tot, c.Want, offs)
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
// 5: 8 [2,3] takes 3's block (ends later), between 2 and 4. The order is
// not one seq_mem_opt.cpp would add them in, so this calls the allocator
// directly.
func TestMegEngineBestFitTies(t *testing.T) {
	bufs := gbsRecs([3]int64{8, 0, 3}, [3]int64{8, 0, 0}, [3]int64{8, 0, 3}, [3]int64{8, 0, 1}, [3]int64{8, 0, 3}, [3]int64{8, 2, 3})
	offs, err := megenginePushdownOffsets(context.Background(), bufs, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{0, 8, 16, 24, 32, 24}; !slices.Equal(offs, want) {
		t.Errorf("offsets %v, want %v", offs, want)
	}
}

// TestMegEngineSeqMemOpt: megengine-pushdown feeds the allocator as
// seq_mem_opt.cpp does (sized chunks only, added by (begin, end)) and
// reports tot_alloc as the arena. Each case was worked by hand from
// pushdown.cpp; rows are {size, first, last}.
func TestMegEngineSeqMemOpt(t *testing.T) {
	for _, c := range []struct {
		name  string
		align int64
		rows  [][3]int64
		want  []int64
		tot   int64
	}{
		// Issue 17 item 5. Added by (begin, end): b1 [0,1) as chunk 0, b0
		// [0,2) as chunk 1. At time 0 there is no free block, so each
		// goes on top in that order: b1 below b0. In problem order b0
		// would be below: [0 1].
		{"issue", 1, [][3]int64{{1, 0, 1}, {1, 0, 0}}, []int64{1, 0}, 2},
		// The same with alignment 4: b0 goes to 1 rounded up, and
		// tot_alloc rounds its end, 5, up to 8.
		{"issue-aligned", 4, [][3]int64{{1, 0, 1}, {1, 0, 0}}, []int64{4, 0}, 8},
		// Zero-size b2 is never added. Time 1: b0's block (3 bytes) is
		// freed, b1 takes it, 2 bytes stay free above; time 2: b1 is
		// freed, the block merges back to 3 bytes and b3 takes it. No
		// links: all at 0. Had b2 been added at time 1, it would have
		// taken the 2 free bytes above b1, and b3 would have grown them to
		// 3 bytes on top of b2, which sits on b1: b3 at 1.
		{"zero-size", 1, [][3]int64{{3, 0, 0}, {1, 1, 1}, {0, 1, 2}, {3, 2, 2}}, []int64{0, 0, 0, 0}, 3},
	} {
		p := &workloads.Problem{Alignment: c.align, Buffers: gbsRecs(c.rows...)}
		plan := mustPlan(t, "megengine-pushdown", p)
		if !slices.Equal(plan.Offsets, c.want) {
			t.Errorf("%s: offsets %v, want %v", c.name, plan.Offsets, c.want)
		}
		if got := megengineTotAlloc(p.Buffers, plan.Offsets, c.align); got != c.tot {
			t.Errorf("%s: tot_alloc %d, want %d", c.name, got, c.tot)
		}
	}
}
