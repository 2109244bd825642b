package strategies

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"membench/workloads"
)

// spaced returns a problem of the given buffers, each in the memory space
// spaces[i], with the named spaces of the given capacities (0: none).
func spaced(bufs []workloads.Buffer, spaces []int, caps ...int64) *workloads.Problem {
	p := &workloads.Problem{Buffers: bufs, Spaces: spaces}
	for m, c := range caps {
		p.Memories = append(p.Memories, workloads.Memory{Name: []string{"dram", "sram", "tcm"}[m], Capacity: c})
	}
	return p
}

// TestUpstreamSpaces: each runtime's memory spaces (XLA's colours,
// ExecuTorch's mem ids, TVM's pools) planned as its upstream plans them,
// golden offsets and per-space footprints worked by hand.
func TestUpstreamSpaces(t *testing.T) {
	type B = workloads.Buffer
	cases := []struct {
		spec  string
		p     *workloads.Problem
		offs  []int64
		fps   []int64
		arena int64
	}{
		// XLA: one heap per colour. In one arena 1 would sit on 0 at 100.
		{"xla-heap", spaced([]B{{ID: 0, Size: 100, First: 0, Last: 1}, {ID: 1, Size: 50, First: 1, Last: 2},
			{ID: 2, Size: 60, First: 2, Last: 3}, {ID: 3, Size: 70, First: 0, Last: 0}}, []int{0, 1, 0, 1}, 0, 0),
			[]int64{0, 0, 0, 0}, []int64{100, 70}, 0},
		// ExecuTorch greedy, mem ids apart: mem 0 sorts 2 (48) then 0
		// (32), which overlaps 2 and does not fit above it in 2's object:
		// a new object at 48; mem 1 ties 1 and 3 at 16, the later first,
		// both in one object at 0.
		{"executorch-greedy", spaced([]B{{ID: 0, Size: 32, First: 0, Last: 1}, {ID: 1, Size: 16, First: 0, Last: 0},
			{ID: 2, Size: 48, First: 1, Last: 2}, {ID: 3, Size: 16, First: 1, Last: 1}}, []int{0, 1, 0, 1}, 0, 0),
			[]int64{48, 0, 0, 0}, []int64{80, 16}, 0},
		// ExecuTorch naive: one bump counter per mem id, sizes rounded to
		// 16.
		{"executorch-naive", spaced([]B{{ID: 0, Size: 20, First: 0, Last: 1}, {ID: 1, Size: 16, First: 0, Last: 0},
			{ID: 2, Size: 48, First: 1, Last: 2}, {ID: 3, Size: 16, First: 1, Last: 1}}, []int{0, 1, 0, 1}, 0, 0),
			[]int64{0, 0, 32, 16}, []int64{80, 32}, 0},
		// TVM greedy_by_conflicts, pools together: A (dram, 10 B, tasks
		// 0-1) conflicts with B (dram, 20 B, 1-2) and C (sram, 5 B, 0), so
		// it has 2 conflicts and goes first: A 0, B 10, C 0. Planned apart,
		// dram alone would tie A and B at one conflict and put B (the
		// larger) first.
		{"tvm-greedy-by-conflicts?workspace_byte_alignment=1", spaced([]B{{ID: 0, Size: 10, First: 0, Last: 1},
			{ID: 1, Size: 20, First: 1, Last: 2}, {ID: 2, Size: 5, First: 0, Last: 0}}, []int{0, 0, 1}, 0, 0),
			[]int64{0, 10, 0}, []int64{30, 5}, 0},
		// greedy_by_size: B 0, A 20 in dram, C 0 in sram; a size hint that
		// holds them changes nothing.
		{"tvm-greedy-by-size?workspace_byte_alignment=1", spaced([]B{{ID: 0, Size: 10, First: 0, Last: 1},
			{ID: 1, Size: 20, First: 1, Last: 2}, {ID: 2, Size: 5, First: 0, Last: 0}}, []int{0, 0, 1}, 30, 5),
			[]int64{20, 0, 0}, []int64{30, 5}, 0},
		// Hill climb: the first pass, B 0 and A 20 in dram (10 B each
		// side), C 0 in sram, totals 35: more than the memory pressure
		// over all buffers (30), so it climbs; swapping A and B gives the
		// same total, so the first pass stands.
		{"tvm-hill-climb?workspace_byte_alignment=1", spaced([]B{{ID: 0, Size: 10, First: 0, Last: 1},
			{ID: 1, Size: 20, First: 1, Last: 2}, {ID: 2, Size: 5, First: 0, Last: 0}}, []int{0, 0, 1}, 0, 0),
			[]int64{20, 0, 0}, []int64{30, 5}, 0},
	}
	for _, c := range cases {
		s, err := Lookup(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := s.Plan(context.Background(), c.p)
		if err != nil {
			t.Errorf("%s: %v", c.spec, err)
			continue
		}
		var sum int64
		for _, f := range c.fps {
			sum += f
		}
		if !slices.Equal(plan.Offsets, c.offs) || !slices.Equal(plan.Footprints, c.fps) || plan.Footprint != sum || plan.Arena != c.arena {
			t.Errorf("%s: offsets %v footprints %v footprint %d arena %d, want %v %v %d %d",
				c.spec, plan.Offsets, plan.Footprints, plan.Footprint, plan.Arena, c.offs, c.fps, sum, c.arena)
		}
	}
}

// TestTVMPoolSizeHint: a buffer past its pool's size hint is USMP's
// error, in each TVM planner.
func TestTVMPoolSizeHint(t *testing.T) {
	bufs := []workloads.Buffer{{ID: 0, Size: 10, First: 0, Last: 1}, {ID: 1, Size: 20, First: 1, Last: 2}, {ID: 2, Size: 5, First: 0, Last: 0}}
	for _, c := range []struct{ spec, want string }{
		{"tvm-greedy-by-size?workspace_byte_alignment=1", `tvm-greedy-by-size: buffer 0 (10 bytes): TVM USMP Error: the space available in the provided pools exceeded (pool "dram", size hint 25 bytes). Please increase the size_hints for memory pools`},
		{"tvm-greedy-by-conflicts?workspace_byte_alignment=1", `tvm-greedy-by-conflicts: buffer 1 (20 bytes): TVM USMP Error: the space available in the provided pools exceeded (pool "dram", size hint 25 bytes). Please increase the size_hints for memory pools`},
		{"tvm-hill-climb?workspace_byte_alignment=1", `tvm-hill-climb: buffer 1 (20 bytes): TVM USMP Error: the space available in the provided pools exceeded (pool "dram", size hint 25 bytes). Please increase the size_hints for memory pools`},
	} {
		s, err := Lookup(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Plan(context.Background(), spaced(slices.Clone(bufs), []int{0, 0, 1}, 25, 0))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %s", c.spec, err, c.want)
		}
	}
}

// TestTVMGreedyPools compares the interval greedy planners with
// PostSortAllocation step by step over the conflict lists (usmpGreedy) on
// random problems with pools and size hints: the same offsets where USMP
// places every buffer clear of its conflicts, an error where USMP fails
// or would place a buffer over a conflict in its pool.
func TestTVMGreedyPools(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(20, 3))
	for trial := range 400 {
		bufs := gbsRandomCase(rng, trial)
		if len(bufs) == 0 {
			continue
		}
		npool := 1 + rng.IntN(3)
		spaces := make([]int, len(bufs))
		for i := range spaces {
			spaces[i] = rng.IntN(npool)
		}
		caps := make([]int64, npool)
		for m := range caps {
			if rng.IntN(2) == 0 {
				caps[m] = 1 + rng.Int64N(2*workloads.LoadBound(bufs)+1)
			}
		}
		p := spaced(bufs, spaces, caps...)
		pools := newUSMPPools(p)
		g, err := newUSMPGraph(ctx, "test", p.Buffers, 8, pools, usmpListPairs)
		if err != nil {
			t.Fatal(err)
		}
		for _, byConflicts := range []bool{false, true} {
			want, werr := usmpGreedy(ctx, g, usmpOrder(g.size, g.name, g.degrees(), byConflicts))
			got, gerr := usmpGreedyIntervals(ctx, "test", p.Buffers, 8, byConflicts, pools)
			if werr == nil && !usmpPoolsOverlap(p, want) {
				if gerr != nil || !slices.Equal(got, want) {
					t.Fatalf("trial %d by conflicts %v: %v (%v), want %v", trial, byConflicts, got, gerr, want)
				}
			} else if gerr == nil || !strings.Contains(gerr.Error(), "TVM USMP Error") {
				t.Fatalf("trial %d by conflicts %v: %v (%v), want USMP's error (reference: %v, %v)", trial, byConflicts, got, gerr, want, werr)
			}
		}
	}
}

// usmpPoolsOverlap reports whether two buffers of one space live at a
// common task and overlap in bytes.
func usmpPoolsOverlap(p *workloads.Problem, offs []int64) bool {
	for i, a := range p.Buffers {
		for j := i + 1; j < len(p.Buffers); j++ {
			b := p.Buffers[j]
			if p.Spaces[i] == p.Spaces[j] && a.First <= b.Last && b.First <= a.Last &&
				offs[i] < offs[j]+b.Size && offs[j] < offs[i]+a.Size && a.Size > 0 && b.Size > 0 {
				return true
			}
		}
	}
	return false
}

// TestPlannerForms: the forms each planner declares it honours.
// tflm-greedy keeps fixed offsets (TFLite Micro's offline plan); the TVM
// planners plan memory spaces together as USMP pools; OmniMalloc's
// searches and milp honour what is listed; the others honour none, their memory spaces planned one at a time by the registry
// (best-of's instances honour what all their members do:
// TestBestOfForms).
func TestPlannerForms(t *testing.T) {
	want := map[string]workloads.Forms{
		"tflm-greedy":             workloads.FormFixed,
		"tvm-greedy-by-size":      workloads.FormMemories,
		"tvm-greedy-by-conflicts": workloads.FormMemories,
		"tvm-hill-climb":          workloads.FormMemories,
		// OmniMalloc's order searches: fixed offsets are the decoder's
		// pins, alignments align its first fit; milp writes all three
		// into its program.
		"greedy":              workloads.FormAlign | workloads.FormFixed,
		"simulated-annealing": workloads.FormAlign | workloads.FormFixed,
		"hill-climb":          workloads.FormAlign | workloads.FormFixed,
		"tabu-search":         workloads.FormAlign | workloads.FormFixed,
		"genetic":             workloads.FormAlign | workloads.FormFixed,
		"random-search":       workloads.FormAlign | workloads.FormFixed,
		"milp":                workloads.FormAlign | workloads.FormFixed | workloads.FormMemories,
	}
	for _, in := range All() {
		if in.Name == "exact" {
			continue // package exact declares its own
		}
		if in.Forms != want[in.Name] {
			t.Errorf("%s: forms %q, want %q", in.Name, in.Forms, want[in.Name])
		}
	}
}

// TestBestOfForms: an instance of best-of honours the forms all its
// members honour, and refuses the others as the registry does.
func TestBestOfForms(t *testing.T) {
	p := &workloads.Problem{
		Buffers: []workloads.Buffer{{ID: 0, Size: 40, First: 0, Last: 1}, {ID: 1, Size: 60, First: 0, Last: 2}},
		Fixed:   []int64{100, -1},
	}
	s, err := Lookup("best-of?of=tflm-greedy")
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := DeclaredForms(s); f != workloads.FormFixed {
		t.Errorf("best-of of tflm-greedy honours %q, want %q", f, workloads.FormFixed)
	}
	plan, err := s.Plan(context.Background(), p)
	if err != nil || !slices.Equal(plan.Offsets, []int64{100, 0}) {
		t.Errorf("best-of over a fixed offset: %v, %v; want tflm-greedy's [100 0]", plan, err)
	}
	s, err = Lookup("best-of?of=xla-heap,tflm-greedy")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Plan(context.Background(), p)
	if want := "unsupported problem form: best-of: fixed offsets are not supported"; err == nil || err.Error() != want {
		t.Errorf("best-of of xla-heap and tflm-greedy: %v, want %s", err, want)
	}
	s, _ = Lookup("best-of?of=tvm-greedy-by-size,tvm-hill-climb")
	if f, _ := DeclaredForms(s); f != 0 {
		t.Errorf("best-of of TVM planners honours %q, want none: spaces go one at a time", f)
	}
}

// TestExecForms: an external planner gets sizes and lifetimes only, so
// the forms it cannot be told are refused, naming it.
func TestExecForms(t *testing.T) {
	s, err := Lookup("exec:/bin/cat")
	if err != nil {
		t.Fatal(err)
	}
	p := &workloads.Problem{Buffers: []workloads.Buffer{{ID: 0, Size: 8, First: 0, Last: 0}}, Fixed: []int64{16}}
	if _, err := s.Plan(context.Background(), p); err == nil || err.Error() != "unsupported problem form: exec:/bin/cat: fixed offsets are not supported" {
		t.Errorf("exec with a fixed offset: %v", err)
	}
}

// TestTVMUpstreamNoPoolError reproduces test_no_pool_error of
// tests/python/tir-usmp/test_tir_usmp_algo.py (apache/tvm at
// fb43fc85774b4d1e65a8ce7451fb09d00e648c45): three 10-byte buffers in a
// pool with a 10-byte size hint, each listing the next as its conflict
// (bi_a: bi_b, bi_b: bi_c, bi_c: bi_a, one way only). greedy_by_size
// places bi_c (the greatest name) at 0, then bi_b finds no room above it:
// USMP's error. The same three buffers live at once, as a problem, fail in
// every TVM planner.
func TestTVMUpstreamNoPoolError(t *testing.T) {
	g := &usmpGraph{size: []int64{10, 10, 10}, name: []string{"bi_a", "bi_b", "bi_c"},
		start: []int32{0, 1, 2, 3}, nbr: []int32{1, 2, 0}, align: 1,
		pools: usmpPools{hint: []int64{10}, names: []string{"tiny_workspace"}}}
	_, err := usmpGreedy(context.Background(), g, usmpOrder(g.size, g.name, g.degrees(), false))
	if want := `usmp: buffer 1 (10 bytes): TVM USMP Error: the space available in the provided pools exceeded (pool "tiny_workspace", size hint 10 bytes). Please increase the size_hints for memory pools`; err == nil || err.Error() != want {
		t.Errorf("greedy_by_size: %v, want %s", err, want)
	}
	p := &workloads.Problem{
		Buffers:  []workloads.Buffer{{ID: 0, Size: 10}, {ID: 1, Size: 10}, {ID: 2, Size: 10}},
		Spaces:   []int{0, 0, 0},
		Memories: []workloads.Memory{{Name: "tiny_workspace", Capacity: 10}},
	}
	for _, spec := range []string{"tvm-greedy-by-size", "tvm-greedy-by-conflicts", "tvm-hill-climb"} {
		s, err := Lookup(spec + "?workspace_byte_alignment=1")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Plan(context.Background(), p); err == nil || !strings.Contains(err.Error(), "TVM USMP Error: the space available in the provided pools exceeded") {
			t.Errorf("%s: %v, want USMP's error", spec, err)
		}
	}
}

// hillClimbUpstream is HillClimbAllocator::PlanMemory (apache/tvm
// src/tir/usmp/algo/hill_climb.cc at
// fb43fc85774b4d1e65a8ce7451fb09d00e648c45) written out plainly: every
// pass from scratch, every placed conflict (of any pool) sorted by offset
// and walked with a map of pool candidates, the pools' sizes in a map.
// Ties of the sorts go by position, as in usmpHillClimb.
func hillClimbUpstream(g *usmpGraph, desired int64) ([]int64, error) {
	n := len(g.size)
	type pa struct {
		pool int // -1: no pool (NullValue<PoolInfo>)
		off  int64
	}
	order := usmpOrder(g.size, g.name, g.degrees(), false)
	pos := map[int32]int{}
	for q, i := range order {
		pos[i] = q
	}
	greedy := func() (map[int32]pa, bool) {
		allocs := map[int32]pa{}
		unfit := false
		for _, b := range order {
			cands := map[int]int64{}
			if m := g.pools.poolOf(b); g.pools.fits(m, 0, g.size[b]) {
				cands[m] = 0
			}
			var conf []int32
			for _, c := range g.conflicts(b) {
				if _, ok := allocs[c]; ok {
					conf = append(conf, c)
				}
			}
			slices.SortStableFunc(conf, func(x, y int32) int {
				if allocs[x].off != allocs[y].off {
					return int(allocs[x].off - allocs[y].off)
				}
				return pos[x] - pos[y]
			})
			for _, c := range conf {
				a := allocs[c]
				cur, ok := cands[a.pool]
				if !ok {
					continue
				}
				next := AlignUp(a.off+g.size[c], g.align)
				if g.pools.fits(a.pool, next, g.size[b]) {
					if next > cur && cur+g.size[b] > a.off {
						cands[a.pool] = next
					}
				} else {
					delete(cands, a.pool)
				}
			}
			m := g.pools.poolOf(b)
			if off, ok := cands[m]; ok {
				allocs[b] = pa{m, off}
			} else {
				unfit = true
				allocs[b] = pa{-1, 0}
			}
		}
		return allocs, unfit
	}
	highest := func(allocs map[int32]pa) map[int]int64 {
		sizes := map[int]int64{}
		for b, a := range allocs {
			if a.pool >= 0 {
				if h := a.off + g.size[b]; sizes[a.pool] <= h {
					sizes[a.pool] = h
				}
			}
		}
		return sizes
	}
	var rnd randR
	var total int64
	swapI1, swapI2 := -1, -1
	var allocs, rollback, result map[int32]pa
	swap := func(i1, i2 int) {
		if i1 == i2 {
			return
		}
		b1, b2 := order[i1], order[i2]
		order[i1], order[i2] = b2, b1
		pos[b1], pos[b2] = i2, i1
	}
	for attempts := 0; attempts < usmpMaxAttempts; attempts++ {
		rollback = allocs
		var unfit bool
		allocs, unfit = greedy()
		sizes := highest(allocs)
		if len(sizes) == 0 {
			return nil, errors.New("increase")
		}
		var sum int64
		for _, s := range sizes {
			sum += s
		}
		if total == 0 || (!unfit && (total > sum || int64(rnd.next()%100) < int64(int32(50*uint64(sum-total)/uint64(sum)/uint64(attempts))))) {
			result = allocs
			if !unfit {
				total = sum
				if total <= desired {
					break
				}
			}
		} else {
			swap(swapI2, swapI1)
			allocs = rollback
			sizes = highest(allocs)
		}
		var top []int32
		for b, a := range allocs {
			if a.pool >= 0 && sizes[a.pool] == a.off+g.size[b] {
				top = append(top, b)
			}
		}
		slices.SortFunc(top, func(x, y int32) int { return pos[x] - pos[y] })
		node := top[int(rnd.next())%len(top)]
		var first, second []int32
		for _, c1 := range g.conflicts(node) {
			if pos[node] > pos[c1] {
				first = append(first, c1)
			}
			for _, c2 := range g.conflicts(c1) {
				if pos[c1] > pos[c2] {
					second = append(second, c2)
				}
			}
		}
		slices.SortFunc(first, func(x, y int32) int { return pos[x] - pos[y] })
		slices.SortFunc(second, func(x, y int32) int { return pos[x] - pos[y] })
		if len(first) == 0 {
			continue
		}
		buf1 := first[int(rnd.next())%len(first)]
		buf2 := buf1
		stuck := !slices.ContainsFunc(first, func(b int32) bool { return b != buf1 }) &&
			!slices.ContainsFunc(second, func(b int32) bool { return b != buf1 })
		for buf2 == buf1 {
			if len(second) > 0 && rnd.next()%100 > 25 {
				buf2 = second[int(rnd.next())%len(second)]
			} else {
				buf2 = first[int(rnd.next())%len(first)]
			}
			if len(second) < 2 && len(first) < 2 || stuck {
				break
			}
		}
		if buf1 == buf2 {
			continue
		}
		swapI1, swapI2 = pos[buf1], pos[buf2]
		swap(swapI1, swapI2)
	}
	out := make([]int64, n)
	for b, a := range result {
		if a.pool < 0 {
			return nil, errors.New("exceeded")
		}
		out[b] = a.off
	}
	return out, nil
}

// TestTVMHillClimbPools compares tvm-hill-climb's pass with the plain
// reference on random problems with one to three pools, some with size
// hints tight enough that buffers find no room.
func TestTVMHillClimbPools(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(20, 4))
	for trial := range 150 {
		bufs := gbsRandomCase(rng, trial)
		if len(bufs) == 0 || len(bufs) > 60 {
			continue
		}
		npool := 1 + rng.IntN(3)
		spaces := make([]int, len(bufs))
		for i := range spaces {
			spaces[i] = rng.IntN(npool)
		}
		caps := make([]int64, npool)
		lb := workloads.LoadBound(bufs)
		for m := range caps {
			if rng.IntN(2) == 0 {
				caps[m] = lb/2 + rng.Int64N(lb+1)
			}
		}
		p := spaced(bufs, spaces, caps...)
		g, err := newUSMPGraph(ctx, "test", p.Buffers, 8, newUSMPPools(p), usmpListPairs)
		if err != nil {
			t.Fatal(err)
		}
		want, werr := hillClimbUpstream(g, lb)
		got, gerr := usmpHillClimb(ctx, g, lb, 1)
		if (werr == nil) != (gerr == nil) || !slices.Equal(got, want) {
			t.Fatalf("trial %d (%d buffers, caps %v): %v (%v), want %v (%v)", trial, len(bufs), caps, got, gerr, want, werr)
		}
	}
}
