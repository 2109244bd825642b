package minimalloc_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"membench/strategies"
	_ "membench/strategies/exact"
	"membench/strategies/minimalloc"
	"membench/strategies/strategytest"
	"membench/workloads"
	_ "membench/workloads/minimalloc"
)

func lookup(t testing.TB, spec string) strategies.Strategy {
	t.Helper()
	s, err := strategies.Lookup(spec)
	if err != nil {
		t.Fatalf("Lookup(%q): %v", spec, err)
	}
	return s
}

// TestConformance runs the suite on capacity mode with the capacity
// membench picks for problems that state none, and on minimise mode.
func TestConformance(t *testing.T) {
	strategytest.Run(t, lookup(t, "minimalloc"), strategies.Offsets)
}

// FuzzMinimalloc plans random problems of the strategytest generator in
// both modes. Minimise mode only sees up to 7 buffers: proving a capacity
// too small can take upstream's search every order of the buffers (with
// alignment its inference ignores the padding), and a timeout would make
// the result depend on the clock.
func FuzzMinimalloc(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed, uint8(12))
	}
	capMode := lookup(f, "minimalloc")
	minMode := lookup(f, "minimalloc?minimize_capacity=true")
	f.Fuzz(func(t *testing.T, seed uint64, n uint8) {
		p := strategytest.RandomProblem(seed, int(n%40)+1)
		if err := strategytest.Check(capMode, strategies.Offsets, p); err != nil {
			t.Fatal(err)
		}
		if len(p.Buffers) <= 7 {
			if err := strategytest.Check(minMode, strategies.Offsets, p); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// smallProblem returns n random buffers over few tasks, so that many
// overlap, sizes from a small set.
func smallProblem(rng *rand.Rand, n int, align int64) *workloads.Problem {
	p := &workloads.Problem{Name: "small", Alignment: align}
	sizes := []int64{0, 1, 2, 3, 5, 8, 13, 24, 64, 100}
	for i := range n {
		first := rng.IntN(8)
		p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: sizes[rng.IntN(len(sizes))], First: first, Last: first + rng.IntN(5)})
	}
	return p
}

// TestMinimiseIsOptimal checks minimise mode against exact on small
// random problems: the same least footprint, and marked optimal.
func TestMinimiseIsOptimal(t *testing.T) {
	mm := lookup(t, "minimalloc?minimize_capacity=true")
	ex := lookup(t, "exact?nodes=1000000")
	rng := rand.New(rand.NewPCG(5, 21))
	for k := range 200 {
		p := smallProblem(rng, 1+rng.IntN(11), []int64{0, 0, 4, 8}[k%4])
		got, err := mm.Plan(context.Background(), p)
		if err != nil {
			var sb strings.Builder
			sb.WriteString("id,lower,upper,size\n")
			for i, b := range p.Buffers {
				fmt.Fprintf(&sb, "%d,%d,%d,%d\n", i, b.First, b.Last+1, b.Size)
			}
			t.Fatalf("case %d: %v\n%s", k, err, sb.String())
		}
		want, err := ex.Plan(context.Background(), p)
		if err != nil || !want.Optimal {
			t.Fatalf("case %d: exact: %v (optimal %v)", k, err, want != nil && want.Optimal)
		}
		if err := strategies.Validate(p, got); err != nil {
			t.Fatalf("case %d: %v", k, err)
		}
		if got.Footprint != want.Footprint || !got.Optimal || got.Bound != got.Footprint {
			t.Errorf("case %d %v: footprint %d (optimal %v, bound %d), exact proves %d",
				k, p.Buffers, got.Footprint, got.Optimal, got.Bound, want.Footprint)
		}
	}
}

// TestCapacityMode: the problem's capacity is the default, capacity=
// overrides it, and a capacity below the optimum is an error that says
// so.
func TestCapacityMode(t *testing.T) {
	p := &workloads.Problem{Capacity: 12, Buffers: []workloads.Buffer{
		{ID: 1, First: 0, Last: 2, Size: 4}, {ID: 2, First: 3, Last: 8, Size: 4},
		{ID: 3, First: 0, Last: 8, Size: 4}, {ID: 4, First: 9, Last: 20, Size: 4},
		{ID: 5, First: 0, Last: 20, Size: 4},
	}}
	// MiniMalloc's README example: b1 and b2 at 8, b3 and b4 at 4, b5 at 0.
	plan, err := lookup(t, "minimalloc").Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{8, 8, 4, 4, 0}; !slices.Equal(plan.Offsets, want) || plan.Footprint != 12 || plan.Nodes == 0 {
		t.Errorf("offsets %v footprint %d nodes %d, want %v footprint 12 and nodes > 0", plan.Offsets, plan.Footprint, plan.Nodes, want)
	}
	if plan.Optimal || plan.Bound != 0 {
		t.Errorf("capacity mode proved a bound: %+v", plan)
	}
	_, err = lookup(t, "minimalloc?capacity=11").Plan(context.Background(), p)
	if want := "minimalloc: no solution within capacity 11 (proved)"; err == nil || err.Error() != want || !errors.Is(err, minimalloc.ErrNoSolution) {
		t.Errorf("capacity 11: %v, want %q", err, want)
	}
	min, err := lookup(t, "minimalloc?minimize_capacity=true&capacity=100").Plan(context.Background(), p)
	if err != nil || min.Footprint != 12 || !min.Optimal {
		t.Errorf("minimise: %+v, %v; want footprint 12, optimal", min, err)
	}
}

// TestForms plans MiniMalloc's forms through the registry: per-buffer
// alignment, gaps with and without windows, and fixed offsets, with the
// offsets MiniMalloc's C++ returns for the same input (hints ignored).
func TestForms(t *testing.T) {
	// testdata/forms.csv in MiniMalloc's CSV (an offset of -1: not fixed):
	// buffer 0 uses no bytes during [2,4) and has a hint; buffer 2 uses
	// only byte 0 during [4,6) and is aligned to 4; buffer 4 is fixed at 10.
	p := &workloads.Problem{
		Buffers: []workloads.Buffer{
			{ID: 0, First: 0, Last: 5, Size: 4}, {ID: 1, First: 2, Last: 3, Size: 8},
			{ID: 2, First: 0, Last: 5, Size: 3}, {ID: 3, First: 4, Last: 5, Size: 2},
			{ID: 4, First: 0, Last: 1, Size: 2},
		},
		Aligns: []int64{0, 0, 4, 2, 0},
		Gaps:   [][]workloads.Gap{{{First: 2, Last: 3}}, nil, {{First: 4, Last: 5, Window: &workloads.Window{Lo: 0, Hi: 1}}}, nil, nil},
		Fixed:  []int64{-1, -1, -1, -1, 10},
		Hints:  []int64{3, -1, -1, -1, -1},
	}
	plan, err := lookup(t, "minimalloc?capacity=16").Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{0, 0, 12, 4, 10} // as the C++ solved testdata/forms.csv
	if !slices.Equal(plan.Offsets, want) {
		t.Errorf("offsets %v, want %v", plan.Offsets, want)
	}
}

// TestBadInput checks the errors for bad parameters and bad problems.
func TestBadInput(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"minimalloc?timeout=soon", `minimalloc: parameter timeout="soon": want a duration such as 10s or 500ms (0s: none)`},
		{"minimalloc?preordering_heuristics=WAX", `minimalloc: parameter preordering_heuristics="WAX": "X" is not a key (want letters of ACLOTUWZ: area, sections, lower, overlaps, total, upper, width, size)`},
		{"minimalloc?preordering_heuristics=,", `minimalloc: parameter preordering_heuristics=",": want at least one heuristic such as WAT`},
		{"minimalloc?hatless_pruning=maybe", `minimalloc: parameter hatless_pruning="maybe": want true or false`},
	} {
		_, err := strategies.Lookup(c.spec)
		if err == nil || err.Error() != c.want {
			t.Errorf("Lookup(%q): %v, want %q", c.spec, err, c.want)
		}
	}
	bad := &workloads.Problem{Buffers: []workloads.Buffer{{ID: 7, First: 0, Last: 5, Size: 4}},
		Gaps: [][]workloads.Gap{{{First: 3, Last: 7}}}}
	_, err := lookup(t, "minimalloc").Plan(context.Background(), bad)
	if want := "minimalloc: buffer 0: gap 0: tasks 3..7 are not inside the lifetime 0..5"; err == nil || err.Error() != want {
		t.Errorf("gap outside the lifetime: %v, want %q", err, want)
	}
}

// TestTimeout: a search cut short by timeout= in capacity mode is an
// error that says so.
func TestTimeout(t *testing.T) {
	w, err := workloads.Load("minimalloc/a")
	if err != nil {
		t.Fatal(err)
	}
	_, err = lookup(t, "minimalloc?timeout=1ms").Plan(context.Background(), w.Problem)
	if want := "minimalloc: no solution within capacity 1048576: timed out after 1ms"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

// TestCancel: a cancelled context ends the search with its error.
func TestCancel(t *testing.T) {
	w, err := workloads.Load("minimalloc/a")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := lookup(t, "minimalloc").Plan(ctx, w.Problem); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// TestDoc keeps the parameter list in the registry in step with the
// package's.
func TestDoc(t *testing.T) {
	var names []string
	for _, in := range strategies.All() {
		if in.Name == "minimalloc" {
			for _, p := range in.Params {
				names = append(names, p.Name)
			}
		}
	}
	want := "capacity,timeout,preordering_heuristics,canonical_only,section_inference,dynamic_ordering,check_dominance," +
		"unallocated_floor,static_preordering,dynamic_decomposition,monotonic_floor,hatless_pruning,minimize_capacity"
	if got := strings.Join(names, ","); got != want {
		t.Errorf("params %s, want %s", got, want)
	}
}
