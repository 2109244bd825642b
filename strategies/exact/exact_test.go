package exact_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"membench/strategies"
	"membench/strategies/exact"
	"membench/strategies/strategytest"
	"membench/workloads"
)

// budgeted is the spec the conformance suite and the fuzz target use: a
// node budget makes the result deterministic.
const budgeted = "exact?nodes=20000"

func lookup(t testing.TB, spec string) strategies.Strategy {
	t.Helper()
	s, err := strategies.Lookup(spec)
	if err != nil {
		t.Fatalf("Lookup(%q): %v", spec, err)
	}
	return s
}

func TestConformance(t *testing.T) {
	strategytest.Run(t, lookup(t, budgeted), strategies.Offsets)
}

// FuzzExact plans random problems of the strategytest generator.
func FuzzExact(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed, uint8(12))
	}
	s := lookup(f, "exact?nodes=2000")
	f.Fuzz(func(t *testing.T, seed uint64, n uint8) {
		p := strategytest.RandomProblem(seed, int(n%40)+1)
		if err := strategytest.Check(s, strategies.Offsets, p); err != nil {
			t.Fatal(err)
		}
	})
}

// smallProblem returns a random problem of n buffers over few tasks, so
// that many overlap, with sizes from a small set so that ties are common.
func smallProblem(rng *rand.Rand, n int, align int64) *workloads.Problem {
	p := &workloads.Problem{Name: "small", Alignment: align}
	sizes := []int64{0, 1, 2, 3, 5, 8, 13, 24, 64, 100}
	for i := range n {
		first := rng.IntN(8)
		p.Buffers = append(p.Buffers, workloads.Buffer{
			ID: i, Size: sizes[rng.IntN(len(sizes))], First: first, Last: first + rng.IntN(5),
		})
	}
	return p
}

// bruteForce returns the smallest footprint over the orders of the
// buffers, each placed first fit: at the lowest aligned offset where it
// overlaps no placed buffer it conflicts with. Only orders whose first-fit
// offsets never go down (ties: by index) are tried, which still finds the
// optimum: take an optimal plan and place its buffers first fit in order
// of offset; each lands at or below its offset (the buffers before it did
// too), so the result is optimal again, with no offset higher. Repeat
// until nothing moves (offsets are integers, their sum keeps falling):
// the fixed point is an optimal plan that first fit rebuilds from an
// order of non-decreasing offsets. It shares no code or rule with the
// solver: no dominance, no inference, no decomposition.
func bruteForce(p *workloads.Problem) int64 {
	n := len(p.Buffers)
	align := max(p.Alignment, 1)
	// conflicts[i]: the buffers of non-zero size whose lifetimes meet i's.
	conflicts := make([][]int, n)
	for i, bi := range p.Buffers {
		for j, bj := range p.Buffers {
			if i != j && bi.Size > 0 && bj.Size > 0 && bi.First <= bj.Last && bj.First <= bi.Last {
				conflicts[i] = append(conflicts[i], j)
			}
		}
	}
	offs := make([]int64, n)
	placed := make([]bool, n)
	ffs := make([][]int64, n+1)
	for d := range ffs {
		ffs[d] = make([]int64, n)
	}
	best := int64(1 << 62)
	lb := p.LoadBound() // nothing beats it: stop once it is reached
	var rec func(depth int, fp, lastOff int64, lastIdx int)
	rec = func(depth int, fp, lastOff int64, lastIdx int) {
		if fp >= best || best == lb {
			return
		}
		if depth == n {
			best = fp
			return
		}
		ff := ffs[depth]
		for i := range n {
			if placed[i] {
				continue
			}
			size := p.Buffers[i].Size
			var off int64
			for moved := true; moved; {
				moved = false
				for _, j := range conflicts[i] {
					if placed[j] && off < offs[j]+p.Buffers[j].Size && offs[j] < off+size {
						off = strategies.AlignUp(offs[j]+p.Buffers[j].Size, align)
						moved = true
					}
				}
			}
			// First fit never goes down as buffers are placed, and every
			// buffer left goes at lastOff or above.
			if max(off, lastOff)+size >= best {
				return
			}
			ff[i] = off
		}
		for i := range n {
			off := ff[i]
			if placed[i] || off < lastOff || off == lastOff && i < lastIdx {
				continue
			}
			placed[i], offs[i] = true, off
			rec(depth+1, max(fp, off+p.Buffers[i].Size), off, i)
			placed[i] = false
		}
	}
	rec(0, 0, 0, -1)
	return best
}

// TestOptimalSmall checks on hundreds of small random problems that exact
// returns the true optimum, proved.
func TestOptimalSmall(t *testing.T) {
	s := lookup(t, "exact?nodes=1000000")
	rng := rand.New(rand.NewPCG(8, 8))
	aligns := []int64{0, 1, 4, 16}
	for i := range 300 {
		n := 1 + rng.IntN(12)
		if i%6 == 0 {
			n = 12
		}
		checkOptimal(t, s, i, smallProblem(rng, n, aligns[rng.IntN(len(aligns))]))
	}
}

// checkOptimal plans problem i, p, with s and requires a valid plan at
// the brute force's optimum, proved.
func checkOptimal(t *testing.T, s strategies.Strategy, i int, p *workloads.Problem) {
	t.Helper()
	want := bruteForce(p)
	plan, err := s.Plan(context.Background(), p)
	if err != nil {
		t.Fatalf("problem %d %s: %v", i, strategytest.Describe(p), err)
	}
	if err := strategies.Validate(p, plan); err != nil {
		t.Fatalf("problem %d %s: %v", i, strategytest.Describe(p), err)
	}
	if plan.Footprint != want || !plan.Optimal || plan.Bound != want {
		t.Fatalf("problem %d %s: footprint %d bound %d optimal %v, want the optimum %d proved",
			i, strategytest.Describe(p), plan.Footprint, plan.Bound, plan.Optimal, want)
	}
}

func TestCapacity(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 40 {
		p := smallProblem(rng, 7, []int64{0, 8}[i%2])
		opt := bruteForce(p)
		if opt == 0 {
			continue
		}
		fits := lookup(t, fmt.Sprintf("exact?nodes=1000000&capacity=%d", opt))
		plan, err := fits.Plan(context.Background(), p)
		if err != nil {
			t.Fatalf("%s in capacity %d (the optimum): %v", strategytest.Describe(p), opt, err)
		}
		if err := strategies.Validate(p, plan); err != nil || plan.Footprint > opt {
			t.Fatalf("%s in capacity %d: footprint %d, validation %v", strategytest.Describe(p), opt, plan.Footprint, err)
		}
		tight := lookup(t, fmt.Sprintf("exact?nodes=1000000&capacity=%d", opt-1))
		_, err = tight.Plan(context.Background(), p)
		want := fmt.Sprintf("exact: no plan fits in capacity %d (proved", opt-1)
		if !errors.Is(err, exact.ErrInfeasible) || err.Error()[:min(len(err.Error()), len(want))] != want {
			t.Fatalf("%s in capacity %d: error %v, want one starting %q", strategytest.Describe(p), opt-1, err, want)
		}
	}
}

func TestCapacityErrors(t *testing.T) {
	p := &workloads.Problem{Buffers: []workloads.Buffer{{ID: 0, Size: 10, First: 0, Last: 1}, {ID: 1, Size: 10, First: 1, Last: 2}}}
	for _, c := range []struct {
		spec, want string
	}{
		{"exact?capacity=19", "exact: no plan fits in capacity 19 (proved: LB_load is 20)"},
	} {
		_, err := lookup(t, c.spec).Plan(context.Background(), p)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: error %v, want %q", c.spec, err, c.want)
		}
	}
	for _, c := range []struct{ spec, want string }{
		{"exact?timeout=soon", `exact: parameter timeout="soon": want a duration such as 10s or 500ms`},
		{"exact?nodes=-1", "exact: parameter nodes=-1: want a non-negative integer"},
	} {
		_, err := strategies.Lookup(c.spec)
		if err == nil || err.Error() != c.want {
			t.Errorf("Lookup(%q): error %v, want %q", c.spec, err, c.want)
		}
	}
}

// minimalloc loads a MiniMalloc challenge instance, skipping without
// ../shared.
func minimalloc(t testing.TB, name string) *workloads.Problem {
	t.Helper()
	return exact.MiniMallocInstance(t, name)
}

// TestDeterministicNodes plans a hard instance twice with a node budget.
func TestDeterministicNodes(t *testing.T) {
	p := minimalloc(t, "D")
	s := lookup(t, "exact?nodes=30000")
	a, err := s.Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if err := strategies.Validate(p, a); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("two plans differ: footprint %d bound %d, then %d bound %d", a.Footprint, a.Bound, b.Footprint, b.Bound)
	}
	if a.Bound < p.LoadBound() || a.Footprint < a.Bound {
		t.Fatalf("footprint %d, bound %d, LB_load %d", a.Footprint, a.Bound, p.LoadBound())
	}
	// Plan.Nodes counts what the budget counts, each search's last node
	// (the one that found the budget spent) aside.
	if a.Nodes < 30000 || a.Nodes > 30000+64 {
		t.Fatalf("%d search nodes reported, want the budget's 30,000", a.Nodes)
	}
}

// TestMiniMallocC: C's optimum is its LB_load, 1,039,360, below the
// instance's capacity.
func TestMiniMallocC(t *testing.T) {
	p := minimalloc(t, "C")
	plan, err := lookup(t, "exact?nodes=1000000").Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if err := strategies.Validate(p, plan); err != nil {
		t.Fatal(err)
	}
	if plan.Footprint != 1039360 || !plan.Optimal || plan.Bound != 1039360 {
		t.Fatalf("footprint %d bound %d optimal %v, want 1039360 proved optimal", plan.Footprint, plan.Bound, plan.Optimal)
	}
}

// TestAdversarialPlanted: the planted packing of adversarial-greedy at
// n = 1,000 (seed 1) has no slack, so its optimum is its LB_load; the
// fillers find one such packing well within the node budget.
func TestAdversarialPlanted(t *testing.T) {
	w, err := workloads.Load("synthetic/adversarial-greedy?n=1000&seed=1")
	if err != nil {
		t.Fatal(err)
	}
	p := w.Problem
	plan, err := lookup(t, "exact?nodes=200000").Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if err := strategies.Validate(p, plan); err != nil {
		t.Fatal(err)
	}
	if plan.Footprint != 1<<20 || !plan.Optimal {
		t.Fatalf("footprint %d bound %d optimal %v, want 1048576 proved optimal", plan.Footprint, plan.Bound, plan.Optimal)
	}
}

// TestRestartComplete: a search whose static order is perturbed
// (minimise's restarts) is still complete: on small random problems it
// finds a valid plan at the brute force's optimum and none a byte below,
// for every order and seed, so a restart that ends without a plan may
// raise the bound.
func TestRestartComplete(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 3))
	above := 0
	for i := range 60 {
		p := smallProblem(rng, 7, []int64{0, 8}[i%2])
		opt := bruteForce(p)
		if opt == 0 {
			continue
		}
		if opt > p.LoadBound() {
			above++
		}
		for _, heur := range []string{"TWA", "WAT", "TAW"} {
			for seed := uint64(0); seed <= 8; seed++ {
				if ok, err := exact.SearchSeeded(p, heur, seed, opt); !ok || err != nil {
					t.Fatalf("problem %d %s, %s seed %d: no plan at the optimum %d (%v)", i, strategytest.Describe(p), heur, seed, opt, err)
				}
				if ok, err := exact.SearchSeeded(p, heur, seed, opt-1); ok || err != nil {
					t.Fatalf("problem %d %s, %s seed %d: a plan below the optimum %d (%v)", i, strategytest.Describe(p), heur, seed, opt, err)
				}
			}
		}
	}
	if above < 10 {
		t.Fatalf("%d problems with their optimum above LB_load; want 10", above)
	}
}
