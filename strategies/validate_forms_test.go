package strategies

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"membench/workloads"
)

// formsProblem is recs with forms set by each case.
func formsProblem(set func(p *workloads.Problem), rs ...[3]int64) *workloads.Problem {
	p := recs(0, rs...)
	set(p)
	return p
}

func TestValidateForms(t *testing.T) {
	aligns := formsProblem(func(p *workloads.Problem) { p.Alignment = 8; p.Aligns = []int64{0, 32} },
		[3]int64{16, 0, 1}, [3]int64{8, 0, 1})
	fixed := formsProblem(func(p *workloads.Problem) { p.Fixed = []int64{workloads.NoOffset, 40} },
		[3]int64{16, 0, 1}, [3]int64{8, 0, 1})
	// Buffer 0 uses only [0,4) during tasks 5..9; buffer 1 lives 6..8;
	// buffers 2 and 3 have no gaps.
	gaps := formsProblem(func(p *workloads.Problem) {
		p.Gaps = [][]workloads.Gap{{{First: 5, Last: 9, Window: &workloads.Window{Lo: 0, Hi: 4}}}, nil, nil, nil}
	}, [3]int64{10, 0, 9}, [3]int64{8, 6, 8}, [3]int64{4, 0, 1}, [3]int64{4, 1, 2})
	two := []workloads.Memory{{Name: "sram", Capacity: 16}, {Name: "dram"}}
	spaces := formsProblem(func(p *workloads.Problem) { p.Memories = two; p.Spaces = []int{0, 1, 0} },
		[3]int64{16, 0, 1}, [3]int64{8, 0, 1}, [3]int64{8, 1, 3})
	spacePlan := func(fps []int64, offs ...int64) *Plan {
		var sum int64
		for _, f := range fps {
			sum += f
		}
		return &Plan{Offsets: offs, Footprint: sum, Footprints: fps}
	}
	// Buffers 0 and 2 never meet: one object in sram, one in dram.
	apart := formsProblem(func(p *workloads.Problem) { p.Memories = two; p.Spaces = []int{0, 1, 0} },
		[3]int64{16, 0, 1}, [3]int64{8, 0, 1}, [3]int64{8, 2, 3})
	objects := func(ids []int, sizes []int64, fps []int64, offs ...int64) *Plan {
		pl := spacePlan(fps, offs...)
		pl.ObjectIDs, pl.ObjectSizes = ids, sizes
		return pl
	}
	badGap := formsProblem(func(p *workloads.Problem) { p.Gaps = [][]workloads.Gap{{{First: 3, Last: 9}}} }, [3]int64{10, 0, 5})
	tests := []struct {
		name string
		p    *workloads.Problem
		plan *Plan
		err  string // "" for valid
	}{
		{"own alignment", aligns, offsetPlan(aligns, 0, 32), ""},
		{"own alignment broken", aligns, offsetPlan(aligns, 0, 16), "invalid plan: buffer 1 has offset 16, not a multiple of the alignment 32"},
		{"problem alignment still applies", aligns, offsetPlan(aligns, 4, 32), "invalid plan: buffer 0 has offset 4, not a multiple of the alignment 8"},
		{"fixed kept", fixed, offsetPlan(fixed, 0, 40), ""},
		{"fixed moved", fixed, offsetPlan(fixed, 0, 16), "invalid plan: buffer 1 has offset 16, not its fixed offset 40"},
		{"gap window shared", gaps, offsetPlan(gaps, 0, 4, 10, 14), ""},
		{"gap window entered", gaps, offsetPlan(gaps, 0, 3, 10, 14),
			"invalid plan: buffers 0 and 1 overlap where both use memory: buffer 0 at offset 0 needs 4 bytes below buffer 1 at offset 3, which needs 8 below it"},
		{"plain pair beside gaps", gaps, offsetPlan(gaps, 0, 4, 10, 12),
			"invalid plan: buffers 2 and 3 overlap: [10,14) and [12,16) both live at task 1"},
		{"gapped buffer against a plain one", gaps, offsetPlan(gaps, 0, 4, 8, 20),
			"invalid plan: buffers 0 and 2 overlap where both use memory: buffer 0 at offset 0 needs 10 bytes below buffer 2 at offset 8, which needs 4 below it"},
		{"spaces", spaces, spacePlan([]int64{16, 8}, 0, 0, 0), "invalid plan: buffers 0 and 2 overlap: [0,16) and [0,8) both live at task 1"},
		{"spaces apart", apart, spacePlan([]int64{16, 8}, 0, 0, 0), ""},
		{"space over capacity", apart, spacePlan([]int64{24, 8}, 8, 0, 0), `invalid plan: memory space "sram": footprint 24 exceeds its capacity 16`},
		{"space footprint wrong", apart, spacePlan([]int64{16, 9}, 0, 0, 0), `invalid plan: memory space "dram": footprint 9, want max(offset+size) = 8`},
		{"footprint not the sum", apart, &Plan{Offsets: []int64{0, 0, 0}, Footprint: 16, Footprints: []int64{16, 8}},
			"invalid plan: footprint 16, want the sum of the memory spaces' footprints 24"},
		{"footprints missing", apart, &Plan{Offsets: []int64{0, 0, 0}, Footprint: 24}, "invalid plan: 0 footprints for 2 memory spaces"},
		{"one space, footprints given", aligns, &Plan{Offsets: []int64{0, 32}, Footprint: 40, Footprints: []int64{40}}, ""},
		{"one space, footprints wrong", aligns, &Plan{Offsets: []int64{0, 32}, Footprint: 40, Footprints: []int64{40, 0}},
			"invalid plan: footprints [40 0] for a problem with one memory space, want none or [40]"},
		{"objects by space", apart, objects([]int{0, 1, 0}, []int64{16, 8}, []int64{16, 8}, 0, 0, 0), ""},
		{"object across spaces", apart, objects([]int{0, 0, 0}, []int64{16}, []int64{16, 8}, 0, 0, 0),
			`invalid plan: buffer 1 of memory space "dram" is in object 0 of memory space "sram"`},
		{"object layout within a space", apart, objects([]int{0, 1, 0}, []int64{16, 8}, []int64{16, 12}, 0, 4, 0),
			`memory space "dram" (buffer and object numbers within it): invalid plan: buffer 0 has offset 4, but its object 0 starts at 0`},
		{"bad gap", badGap, offsetPlan(badGap, 0), "invalid problem: buffer 0: gap 0: tasks 3..9 are not inside the lifetime 0..5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.p, tt.plan)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("Validate = %v, want nil", err)
			case tt.err != "" && (err == nil || err.Error() != tt.err):
				t.Fatalf("Validate = %v\nwant %s", err, tt.err)
			}
			if err != nil && !errors.Is(err, ErrInvalidPlan) && !errors.Is(err, ErrInvalidProblem) {
				t.Fatalf("%v wraps neither ErrInvalidPlan nor ErrInvalidProblem", err)
			}
		})
	}
}

func TestLowerBoundsForms(t *testing.T) {
	two := []workloads.Memory{{Name: "sram"}, {Name: "dram", Capacity: 64}}
	tests := []struct {
		name  string
		p     *workloads.Problem
		load  int64
		loads []int64
	}{
		// Tasks 0..4: 10 bytes; 6..8: the window's 4 and 8.
		{"window", formsProblem(func(p *workloads.Problem) {
			p.Gaps = [][]workloads.Gap{{{First: 5, Last: 9, Window: &workloads.Window{Lo: 0, Hi: 4}}}, nil}
		}, [3]int64{10, 0, 9}, [3]int64{8, 6, 8}), 12, nil},
		// Buffer 0 uses nothing at any task, but takes its size.
		{"empty gap everywhere", formsProblem(func(p *workloads.Problem) {
			p.Gaps = [][]workloads.Gap{{{First: 0, Last: 9}}, nil}
		}, [3]int64{10, 0, 9}, [3]int64{4, 0, 0}), 10, nil},
		// Apart in time, but each space needs its own.
		{"spaces", formsProblem(func(p *workloads.Problem) { p.Memories = two; p.Spaces = []int{0, 1} },
			[3]int64{16, 0, 0}, [3]int64{8, 1, 1}), 24, []int64{16, 8}},
		{"gaps in spaces", formsProblem(func(p *workloads.Problem) {
			p.Memories = two
			p.Spaces = []int{0, 1, 1}
			p.Gaps = [][]workloads.Gap{nil, {{First: 1, Last: 1, Window: &workloads.Window{Lo: 2, Hi: 3}}}, nil}
		}, [3]int64{16, 0, 0}, [3]int64{8, 0, 2}, [3]int64{4, 1, 1}), 16 + 8, []int64{16, 8}},
	}
	for _, tt := range tests {
		got := LowerBounds(tt.p)
		if got.Load != tt.load || !reflect.DeepEqual(got.Loads, tt.loads) || tt.p.LoadBound() != tt.load {
			t.Errorf("%s: LowerBounds = %+v, LoadBound %d; want Load %d, Loads %v", tt.name, got, tt.p.LoadBound(), tt.load, tt.loads)
		}
	}
}

// TestValidateFormsMatchesBruteForce compares Validate's verdict on
// random problems with gaps and memory spaces with every pair checked by
// the gap rule.
func TestValidateFormsMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 20))
	valid := 0
	for iter := 0; iter < 3000; iter++ {
		n := 2 + rng.IntN(8)
		p := &workloads.Problem{Memories: []workloads.Memory{{Name: "a"}, {Name: "b"}}, Spaces: make([]int, n), Gaps: make([][]workloads.Gap, n)}
		offs := make([]int64, n)
		for i := range n {
			f := rng.IntN(6)
			b := workloads.Buffer{ID: i, Size: rng.Int64N(9), First: f, Last: f + rng.IntN(6)}
			p.Buffers = append(p.Buffers, b)
			p.Spaces[i] = rng.IntN(2)
			offs[i] = rng.Int64N(16)
			for t := b.First; t <= b.Last && rng.IntN(3) == 0; {
				g := workloads.Gap{First: t + rng.IntN(b.Last-t+1)}
				g.Last = g.First + rng.IntN(b.Last-g.First+1)
				if rng.IntN(2) == 0 {
					lo := rng.Int64N(b.Size + 1)
					g.Window = &workloads.Window{Lo: lo, Hi: lo + rng.Int64N(b.Size-lo+1)}
				}
				p.Gaps[i] = append(p.Gaps[i], g)
				t = g.Last + 1
			}
		}
		fps := make([]int64, 2)
		for i, b := range p.Buffers {
			fps[p.Spaces[i]] = max(fps[p.Spaces[i]], offs[i]+b.Size)
		}
		plan := &Plan{Offsets: offs, Footprints: fps, Footprint: fps[0] + fps[1]}
		want := true
		for i := range n {
			for j := i + 1; j < n; j++ {
				if p.Spaces[i] == p.Spaces[j] && workloads.Collide(p, i, j, offs[i], offs[j]) {
					want = false
				}
			}
		}
		err := Validate(p, plan)
		if (err == nil) != want {
			t.Fatalf("problem %+v offsets %v: Validate = %v, brute force valid = %v", p, offs, err, want)
		}
		if want {
			valid++
		}
	}
	if valid < 100 {
		t.Fatalf("only %d valid plans drawn", valid)
	}
}

// TestValidateUpstreamCases are MiniMalloc's validator tests
// (tests/validator_test.cc at 9f5cf81) that concern the forms, their
// half-open lifespans [lower, upper) written as inclusive tasks; the
// capacity is left out (membench's Problem.Capacity is a budget).
func TestValidateUpstreamCases(t *testing.T) {
	type hb struct {
		lo, up      int
		size, align int64
		fixed       int64      // -1: none
		gaps        [][4]int64 // lower, upper, window lo, hi (lo -1: none)
	}
	build := func(bs []hb) *workloads.Problem {
		p := &workloads.Problem{}
		for i, b := range bs {
			p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: b.size, First: b.lo, Last: b.up - 1})
			p.Aligns = append(p.Aligns, b.align)
			p.Fixed = append(p.Fixed, b.fixed)
			var gs []workloads.Gap
			for _, g := range b.gaps {
				gap := workloads.Gap{First: int(g[0]), Last: int(g[1]) - 1}
				if g[2] >= 0 {
					gap.Window = &workloads.Window{Lo: g[2], Hi: g[3]}
				}
				gs = append(gs, gap)
			}
			p.Gaps = append(p.Gaps, gs)
		}
		return p
	}
	stairs := []hb{
		{0, 108, 30, 0, -1, [][4]int64{{36, 72, 10, 30}, {72, 108, 20, 30}}},
		{36, 144, 50, 0, -1, [][4]int64{{36, 72, 20, 30}, {72, 108, 10, 40}}},
		{84, 144, 42, 0, -1, [][4]int64{{114, 129, 0, 28}, {129, 144, 0, 14}}},
		{84, 129, 42, 0, -1, [][4]int64{{99, 114, 14, 42}, {114, 129, 28, 42}}},
		{99, 144, 70, 0, -1, [][4]int64{{99, 114, 28, 42}, {114, 129, 14, 56}}},
		{0, 144, 30, 0, -1, [][4]int64{{72, 108, 0, 20}, {108, 144, 0, 10}}},
	}
	for _, c := range []struct {
		name  string
		bufs  []hb
		offs  []int64
		valid bool
	}{
		{"ValidatesGoodSolution", []hb{{0, 1, 2, 0, -1, nil}, {1, 3, 1, 0, -1, nil}, {2, 4, 1, 0, -1, nil}, {3, 5, 1, 0, -1, nil}}, []int64{0, 0, 1, 0}, true},
		{"ValidatesGoodSolutionWithGaps", []hb{{0, 10, 2, 0, -1, [][4]int64{{1, 9, -1, 0}}}, {5, 15, 2, 0, -1, [][4]int64{{6, 14, -1, 0}}}}, []int64{0, 0}, true},
		{"ValidatesGoodSolutionWithGapsEdgeCase", []hb{{0, 10, 2, 0, -1, [][4]int64{{1, 8, -1, 0}}}, {5, 15, 2, 0, -1, [][4]int64{{8, 14, -1, 0}}}}, []int64{0, 0}, true},
		{"ValidatesTetris", []hb{{0, 10, 2, 0, -1, [][4]int64{{0, 5, 0, 1}}}, {0, 10, 2, 0, -1, [][4]int64{{5, 10, 1, 2}}}}, []int64{0, 1}, true},
		{"ValidatesStairs", stairs, []int64{30, 10, 60, 102, 74, 0}, true},
		{"InvalidatesFixedBuffer", []hb{{0, 1, 2, 0, -1, nil}, {1, 2, 1, 0, -1, nil}, {1, 2, 1, 0, 0, nil}}, []int64{0, 0, 1}, false},
		{"InvalidatesOverlap", []hb{{0, 1, 2, 0, -1, nil}, {1, 2, 1, 0, -1, nil}, {1, 2, 1, 0, -1, nil}}, []int64{0, 0, 0}, false},
		{"InvalidatesMisalignment", []hb{{0, 1, 2, 0, -1, nil}, {1, 2, 1, 2, -1, nil}}, []int64{0, 1}, false},
		{"InvalidatesGapOverlap", []hb{{0, 10, 2, 0, -1, [][4]int64{{1, 7, -1, 0}}}, {5, 15, 2, 0, -1, [][4]int64{{8, 14, -1, 0}}}}, []int64{0, 0}, false},
	} {
		p := build(c.bufs)
		err := Validate(p, offsetPlan(p, c.offs...))
		if (err == nil) != c.valid {
			t.Errorf("%s: Validate = %v, want valid %v", c.name, err, c.valid)
		}
	}
}
