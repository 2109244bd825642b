package strategies

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

// TestMILPStackBound checks milp's lower bound: sizes below the top of a
// stack rounded up to the alignments' gcd, LB_load where that is 1.
func TestMILPStackBound(t *testing.T) {
	bufs := []workloads.Buffer{{ID: 0, Size: 10, First: 0, Last: 1}, {ID: 1, Size: 10, First: 0, Last: 1}, {ID: 2, Size: 3, First: 1, Last: 2}}
	tests := []struct {
		name string
		p    workloads.Problem
		lb   int64 // bytes
	}{
		{"plain", workloads.Problem{Buffers: bufs}, 23},
		// 16 + 16 + 3 at task 1: the 3-byte buffer gains most on top.
		{"aligned 16", workloads.Problem{Buffers: bufs, Alignment: 16}, 35},
		// gcd(16, 24, 16) = 8: 16 + 8 + 10 at task 1.
		{"aligns 16, 24, 16", workloads.Problem{Buffers: bufs, Aligns: []int64{16, 24, 16}}, 34},
		// The unaligned buffer makes task 1's gcd 1 (23); task 0's two
		// aligned ones need 16 + 10.
		{"one unaligned", workloads.Problem{Buffers: bufs, Aligns: []int64{16, 16, 1}}, 26},
		// Fixed at 32, a multiple of 32; with the others' 16, gcd 16.
		{"fixed", workloads.Problem{Buffers: bufs, Alignment: 16, Fixed: []int64{32, -1, -1}}, 35},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mod, err := newMILPModel(context.Background(), &tc.p, true)
			if err != nil {
				t.Fatal(err)
			}
			if got := mod.lb[0] * mod.unit; got != tc.lb {
				t.Errorf("stack bound %d bytes, want %d", got, tc.lb)
			}
		})
	}
}

// TestMILPRowsAdmitPlans checks that every row milp writes (the pairs'
// big-M rows, the clique rows, the probe's) holds for valid plans: the
// greedy plan it starts from in the whole and the plain program, and in
// the probe a plan at the stack bound where the greedy one is there.
func TestMILPRowsAdmitPlans(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 7))
	dir := t.TempDir()
	for k := range 300 {
		p := &workloads.Problem{Alignment: []int64{0, 4, 24, 128}[rng.IntN(4)]}
		n, T := 2+rng.IntN(14), 1+rng.IntN(8)
		for i := range n {
			f := rng.IntN(T)
			p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: 1 + rng.Int64N(300), First: f, Last: f + rng.IntN(T-f+1)})
		}
		mod, err := newMILPModel(context.Background(), p, true)
		if err != nil {
			t.Fatal(err)
		}
		forms := []milpForm{formWhole, formPlain}
		if mod.firstOptimal() {
			forms = append(forms, formProbe)
		}
		for _, form := range forms {
			path := filepath.Join(dir, "model.lp")
			if err := mod.write(context.Background(), path, form); err != nil {
				t.Fatal(err)
			}
			if bad := violatedRows(t, path, mod, p); bad != "" {
				t.Fatalf("problem %d %+v, form %d: the greedy plan %v breaks %s", k, p, form, mod.first, bad)
			}
		}
	}
}

// violatedRows evaluates the rows and bounds of the LP file at path at
// the model's greedy plan and returns the first it breaks, or "".
func violatedRows(t *testing.T, path string, mod *milpModel, p *workloads.Problem) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	val := map[string]float64{}
	for m, ub := range mod.ub {
		val["F"+strconv.Itoa(m)] = float64(ub)
	}
	for i, o := range mod.first {
		x := o / mod.unit
		val["x"+strconv.Itoa(i)] = float64(x)
		val["k"+strconv.Itoa(i)] = float64(x) / float64(mod.align[i])
	}
	for _, e := range mod.pairs {
		z := 0.0
		if mod.first[e[0]] < mod.first[e[1]] {
			z = 1
		}
		val["z"+strconv.Itoa(int(e[0]))+"_"+strconv.Itoa(int(e[1]))] = z
	}
	text := string(data)
	rows := text[strings.Index(text, "Subject To")+len("Subject To") : strings.Index(text, "Bounds")]
	for _, line := range strings.Split(strings.TrimSpace(rows), "\n") {
		_, expr, _ := strings.Cut(line, ":")
		f := strings.Fields(expr)
		op, rhs := f[len(f)-2], f[len(f)-1]
		var lhs float64
		sign, coef := 1.0, 1.0
		for _, tok := range f[:len(f)-2] {
			switch {
			case tok == "+":
				sign = 1
			case tok == "-":
				sign = -1
			default:
				if c, err := strconv.ParseFloat(tok, 64); err == nil {
					coef = c
					continue
				}
				v, ok := val[tok]
				if !ok {
					t.Fatalf("%s: unknown variable %q", line, tok)
				}
				lhs += sign * coef * v
				sign, coef = 1, 1
			}
		}
		r, _ := strconv.ParseFloat(rhs, 64)
		if op == "<=" && lhs > r || op == ">=" && lhs < r || op == "=" && lhs != r {
			return line
		}
	}
	bounds := text[strings.Index(text, "Bounds")+len("Bounds") : strings.Index(text, "General")]
	for _, line := range strings.Split(strings.TrimSpace(bounds), "\n") {
		f := strings.Fields(line)
		switch len(f) {
		case 3: // v = c
			if c, _ := strconv.ParseFloat(f[2], 64); val[f[0]] != c {
				return line
			}
		case 5: // lo <= v <= hi
			lo, _ := strconv.ParseFloat(f[0], 64)
			hi, _ := strconv.ParseFloat(f[4], 64)
			if v := val[f[2]]; v < lo || v > hi {
				return line
			}
		}
	}
	return ""
}

// TestMILPCliques checks the maximal sets of buffers live at one task
// that milp writes clique rows for.
func TestMILPCliques(t *testing.T) {
	p := &workloads.Problem{Buffers: []workloads.Buffer{
		{ID: 0, Size: 8, First: 0, Last: 2}, {ID: 1, Size: 8, First: 1, Last: 3}, {ID: 2, Size: 8, First: 2, Last: 2},
		{ID: 3, Size: 8, First: 4, Last: 5}, {ID: 4, Size: 8, First: 4, Last: 4}, {ID: 5, Size: 0, First: 4, Last: 5},
		{ID: 6, Size: 8, First: 7, Last: 7},
	}}
	// {0,1} at task 1 is still live at 2; {6} is alone; 5 has no bytes.
	got := maximalCliques(p, []int{0, 1, 2, 3, 4, 5, 6})
	want := [][]int32{{0, 1, 2}, {3, 4}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("cliques %v, want %v", got, want)
	}
}

// TestMILPCliqueTermsCapped checks that the clique rows of a large
// program stop at milpCliqueTerms terms.
func TestMILPCliqueTermsCapped(t *testing.T) {
	p := &workloads.Problem{}
	for i := range 200 {
		p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: int64(8 + i%7), First: i / 4, Last: i/4 + 40})
	}
	mod, err := newMILPModel(context.Background(), p, true)
	if err != nil {
		t.Fatal(err)
	}
	all := 0
	for _, c := range mod.cliques {
		all += 2 * len(c) * len(c)
	}
	if all <= milpCliqueTerms {
		t.Fatalf("the cliques hold %d terms, want a problem with more than %d", all, milpCliqueTerms)
	}
	path := filepath.Join(t.TempDir(), "model.lp")
	if err := mod.write(context.Background(), path, formWhole); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Each pair's binary is in its two big-M rows and the Binary section;
	// the rest of the binaries' occurrences are the clique rows' terms.
	zs := strings.Count(string(data), " z") - 3*len(mod.pairs)
	if zs > milpCliqueTerms || zs == 0 {
		t.Errorf("the clique rows hold %d order terms, want some and at most %d", zs, milpCliqueTerms)
	}
}

// TestMILPStackBoundSweep checks the sweep used past milpMaxPairs: with
// one alignment (or none) it equals the pairwise stack bound, and with
// mixed ones it is a lower bound at most that (one gcd for the space).
func TestMILPStackBoundSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for k := range 400 {
		p := &workloads.Problem{}
		n, T := 1+rng.IntN(30), 1+rng.IntN(12)
		mixed := k%2 == 1
		if !mixed {
			p.Alignment = []int64{0, 8, 24, 64}[rng.IntN(4)]
		}
		for i := range n {
			f := rng.IntN(T)
			p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: rng.Int64N(200), First: f, Last: f + rng.IntN(T-f+1)})
			if mixed {
				p.Aligns = append(p.Aligns, []int64{1, 8, 16, 24}[rng.IntN(4)])
			}
		}
		mod, err := newMILPModel(context.Background(), p, true)
		if err != nil {
			t.Fatal(err)
		}
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		pair, sweep := mod.stackBound(p, idx), mod.stackBoundSweep(p, idx)
		lb := (p.LoadBound() + mod.unit - 1) / mod.unit
		if !mixed && max(sweep, lb) != max(pair, lb) || max(sweep, lb) > max(pair, lb) {
			t.Fatalf("problem %d (mixed %v): sweep %d, pairwise %d, LB_load %d units", k, mixed, sweep, pair, lb)
		}
	}
}

// TestMILPHugeNoProgram: past milpMaxPairs live pairs milp builds no
// program; it returns the greedy plan it would start CBC from, validated,
// with the stack bound (here above LB_load: sizes 8 at alignment 16).
func TestMILPHugeNoProgram(t *testing.T) {
	p := &workloads.Problem{Name: "all-live", Alignment: 16}
	for i := range 1500 {
		p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, Size: 8, First: i % 3, Last: 3 + i%5})
	}
	if pairs := kernel.ConflictPairs(p.Buffers); pairs <= milpMaxPairs {
		t.Fatalf("%d pairs: not past the limit", pairs)
	}
	if _, err := exec.LookPath("cbc"); err != nil {
		t.Skip("cbc is not installed (apt-get install coinor-cbc)")
	}
	s, err := Lookup("milp")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(p, plan); err != nil {
		t.Fatal(err)
	}
	// At task 3 all 1,500 are live: 1,499 × 16 + 8.
	if want := int64(1499*16 + 8); plan.Bound != want || !plan.Optimal || plan.Footprint != want {
		t.Errorf("footprint %d, bound %d, optimal %v; want %d, proved", plan.Footprint, plan.Bound, plan.Optimal, want)
	}
}

// TestMILPKillsOverrunningCBC: a CBC that ignores its time limit (as the
// real one does while it reads a large program) is killed a little after
// it, and milp returns the greedy plan it started from. The stand-in cbc
// sleeps for ten minutes, so without the kill the test runs into go
// test's own timeout.
func TestMILPKillsOverrunningCBC(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cbc"), []byte("#!/bin/sh\nexec sleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep on PATH")
	}
	sleep, _ := exec.LookPath("sleep")
	t.Setenv("PATH", dir+string(os.PathListSeparator)+filepath.Dir(sleep))
	// A problem whose greedy plan is above the stack bound, so that CBC
	// is run.
	rng := rand.New(rand.NewPCG(3, 3))
	var p *workloads.Problem
	for p == nil {
		q := &workloads.Problem{}
		for i := range 8 {
			f := rng.IntN(4)
			q.Buffers = append(q.Buffers, workloads.Buffer{ID: i, Size: 1 + rng.Int64N(100), First: f, Last: f + rng.IntN(3)})
		}
		mod, err := newMILPModel(context.Background(), q, true)
		if err != nil {
			t.Fatal(err)
		}
		if !mod.firstOptimal() {
			p = q
		}
	}
	mod, _ := newMILPModel(context.Background(), p, true)
	s, err := Lookup("milp?timeout=1s")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if want := mod.footprint(p, mod.first); plan.Footprint != want || plan.Optimal {
		t.Errorf("footprint %d (optimal %v), want the greedy plan's %d, not proved", plan.Footprint, plan.Optimal, want)
	}
}
