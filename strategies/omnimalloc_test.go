package strategies_test

import (
	"bufio"
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"membench/strategies"
	"membench/workloads"
)

// readOmniGoldens reads testdata/omnimalloc/goldens.txt (written by
// gen.py there): problems as "size first last fixed" lines, then plans
// as a spec line and the offsets OmniMalloc returns.
func readOmniGoldens(t *testing.T) (map[string]*workloads.Problem, [][3]string) {
	t.Helper()
	f, err := os.Open("testdata/omnimalloc/goldens.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	probs := map[string]*workloads.Problem{}
	var plans [][3]string
	sc := bufio.NewScanner(f)
	var cur *workloads.Problem
	for sc.Scan() {
		line := sc.Text()
		switch fields := strings.Fields(line); {
		case fields[0] == "problem":
			cur = &workloads.Problem{Name: fields[1]}
			probs[fields[1]] = cur
		case fields[0] == "end":
			if slices.ContainsFunc(cur.Fixed, func(o int64) bool { return o >= 0 }) == false {
				cur.Fixed = nil
			}
			cur = nil
		case fields[0] == "plan":
			if !sc.Scan() {
				t.Fatalf("plan %s %s: no offsets line", fields[1], fields[2])
			}
			plans = append(plans, [3]string{fields[1], fields[2], sc.Text()})
		case cur != nil:
			var v [4]int64
			for k := range v {
				v[k], err = strconv.ParseInt(fields[k], 10, 64)
				if err != nil {
					t.Fatalf("%q: %v", line, err)
				}
			}
			cur.Buffers = append(cur.Buffers, workloads.Buffer{ID: len(cur.Buffers), Size: v[0], First: int(v[1]), Last: int(v[2])})
			cur.Fixed = append(cur.Fixed, v[3])
		}
	}
	return probs, plans
}

// TestOmniMallocGoldens checks that the OmniMalloc planners return the
// plans OmniMalloc returns: its C++ for simulated-annealing, hill-climb
// and tabu-search, its Python loops over DEAP and CPython's random for
// genetic and random-search, its greedy orders.
func TestOmniMallocGoldens(t *testing.T) {
	probs, plans := readOmniGoldens(t)
	if len(plans) < 100 {
		t.Fatalf("read %d plans, want the whole file", len(plans))
	}
	for _, pl := range plans {
		p, spec, want := probs[pl[0]], pl[1], pl[2]
		s, err := strategies.Lookup(spec)
		if err != nil {
			t.Fatalf("Lookup(%q): %v", spec, err)
		}
		plan, err := s.Plan(context.Background(), p)
		if err != nil {
			t.Errorf("%s on %s: %v", spec, pl[0], err)
			continue
		}
		if err := strategies.Validate(p, plan); err != nil {
			t.Errorf("%s on %s: %v", spec, pl[0], err)
		}
		var got []string
		for _, o := range plan.Offsets {
			got = append(got, strconv.FormatInt(o, 10))
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("%s on %s:\n got %s\nwant %s", spec, pl[0], g, want)
		}
	}
}

// suiteSpecs are the specs the conformance suite and the fuzz target run
// the order-search planners by: their default budgets are sized for a
// benchmark, these for a test.
var suiteSpecs = map[string]string{
	"simulated-annealing": "simulated-annealing?max_iterations=100",
	"hill-climb":          "hill-climb?max_iterations=100",
	"tabu-search":         "tabu-search?max_iterations=20&neighborhood_size=5",
	"genetic":             "genetic?population_size=10&max_generations=5",
	"random-search":       "random-search?num_trials=20",
	"greedy":              "greedy?order=all",
	"milp":                "milp?timeout=0&nodes=1&heuristics=false",
}

// suiteSpec returns the spec the suites run the strategy name by.
func suiteSpec(name string) string {
	if s, ok := suiteSpecs[name]; ok {
		return s
	}
	return name
}

// TestOmniMallocBudgets checks the wall-time budget: with one that has run
// out at once, each search returns the plan it starts from (the genetic
// algorithm scores only its first individual, the size order; random
// search decodes only its first shuffle, which random-search?num_trials=1
// decodes too).
func TestOmniMallocBudgets(t *testing.T) {
	probs, _ := readOmniGoldens(t)
	p := probs["rand60"]
	plan := func(spec string) []int64 {
		t.Helper()
		s, err := strategies.Lookup(spec)
		if err != nil {
			t.Fatalf("Lookup(%q): %v", spec, err)
		}
		pl, err := s.Plan(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		return pl.Offsets
	}
	bySize := plan("greedy?order=size")
	for _, spec := range []string{"simulated-annealing?timeout=1ns", "hill-climb?timeout=1ns", "tabu-search?timeout=1ns", "genetic?timeout=1ns"} {
		if got := plan(spec); !slices.Equal(got, bySize) {
			t.Errorf("%s = %v, want the size order's first fit %v", spec, got, bySize)
		}
	}
	if got, want := plan("random-search?timeout=1ns"), plan("random-search?num_trials=1"); !slices.Equal(got, want) {
		t.Errorf("random-search?timeout=1ns = %v, want its first shuffle's %v", got, want)
	}
	if slices.Equal(plan("simulated-annealing?timeout=0"), bySize) {
		t.Error("simulated-annealing without a budget returned its starting plan; the budget test proves nothing")
	}
}

// TestOmniMallocParams checks the parameter errors.
func TestOmniMallocParams(t *testing.T) {
	tests := []struct{ spec, want string }{
		{"simulated-annealing?cooling_rate=0", "simulated-annealing: parameter cooling_rate=0: want a number in (0, 1]"},
		{"simulated-annealing?initial_temperature=-1", "simulated-annealing: parameter initial_temperature=-1: want a number in [0, +Inf]"},
		{"hill-climb?max_iterations=0", "hill-climb: parameter max_iterations=0: want an integer of at least 1"},
		{"hill-climb?cooling_rate=0.5", "cooling_rate"},
		{"tabu-search?tabu_tenure=0", "tabu-search: parameter tabu_tenure=0: want an integer of at least 1"},
		{"genetic?mutation_prob=1.5", "genetic: parameter mutation_prob=1.5: want a number in [0, 1]"},
		{"genetic?max_generations=-1", "genetic: parameter max_generations=-1: want an integer of at least 0"},
		{"random-search?seed=-3", "random-search: parameter seed=-3: want a non-negative integer"},
		{"random-search?timeout=soon", "random-search: parameter timeout=\"soon\": want a duration such as 3s or 500ms, 0 for none"},
		{"greedy?order=height", "greedy: parameter order=\"height\": want one of input, size, duration, area, conflict, conflict-size, start, all"},
		{"milp?nodes=-1", "milp: parameter nodes=-1: want an integer of at least 0"},
	}
	for _, tc := range tests {
		_, err := strategies.Lookup(tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Lookup(%q) = %v, want an error containing %q", tc.spec, err, tc.want)
		}
	}
}
