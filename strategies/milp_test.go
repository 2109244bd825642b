package strategies_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"membench/strategies"
	"membench/workloads"
)

// solverMissing reports whether s needs a solver that is not installed
// (milp without cbc): the suites skip it then.
func solverMissing(s strategies.Strategy) bool {
	_, err := s.Plan(context.Background(), &workloads.Problem{Buffers: []workloads.Buffer{{Size: 8}}})
	return errors.Is(err, strategies.ErrSolverMissing)
}

func needCBC(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("cbc"); err != nil {
		t.Skip("cbc is not installed (apt-get install coinor-cbc)")
	}
}

// TestMILPWithoutCBC checks the error milp gives where cbc is not on PATH.
func TestMILPWithoutCBC(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	s, err := strategies.Lookup("milp")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Plan(context.Background(), &workloads.Problem{Buffers: []workloads.Buffer{{Size: 8}}})
	if !errors.Is(err, strategies.ErrSolverMissing) || !strings.Contains(err.Error(), "apt-get install coinor-cbc") {
		t.Errorf("error %v, want ErrSolverMissing saying apt-get install coinor-cbc", err)
	}
}

// TestMILPForms checks that milp honours alignments, fixed offsets and
// memory spaces with capacities, and proves the optimum on each.
func TestMILPForms(t *testing.T) {
	needCBC(t)
	bufs := []workloads.Buffer{{ID: 0, Size: 24, First: 0, Last: 2}, {ID: 1, Size: 40, First: 1, Last: 3}, {ID: 2, Size: 8, First: 2, Last: 4}, {ID: 3, Size: 16, First: 4, Last: 5}}
	tests := []struct {
		name      string
		p         workloads.Problem
		offsets   []int64
		footprint int64
	}{
		{"plain", workloads.Problem{Buffers: bufs}, nil, 72},
		{"aligned", workloads.Problem{Buffers: bufs, Aligns: []int64{64, 64, 0, 0}}, nil, 88},
		{"fixed", workloads.Problem{Buffers: bufs, Fixed: []int64{-1, 0, -1, -1}}, nil, 72},
		{"fixed high", workloads.Problem{Buffers: bufs, Fixed: []int64{-1, -1, 100, -1}}, nil, 108},
		{"spaces", workloads.Problem{Buffers: bufs, Spaces: []int{0, 1, 0, 1}, Memories: []workloads.Memory{{Name: "a"}, {Name: "b", Capacity: 64}}}, nil, 32 + 40},
	}
	s, err := strategies.Lookup("milp?timeout=30s")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := s.Plan(context.Background(), &tc.p)
			if err != nil {
				t.Fatal(err)
			}
			if err := strategies.Validate(&tc.p, plan); err != nil {
				t.Fatal(err)
			}
			if plan.Footprint != tc.footprint || !plan.Optimal || plan.Bound != tc.footprint {
				t.Errorf("footprint %d, bound %d, optimal %v; want %d proved optimal", plan.Footprint, plan.Bound, plan.Optimal, tc.footprint)
			}
			if tc.offsets != nil && !equalInt64s(plan.Offsets, tc.offsets) {
				t.Errorf("offsets %v, want %v", plan.Offsets, tc.offsets)
			}
		})
	}
	// A capacity below the load cannot be met.
	p := workloads.Problem{Buffers: bufs, Spaces: []int{0, 0, 0, 0}, Memories: []workloads.Memory{{Name: "a", Capacity: 60}}}
	if _, err := s.Plan(context.Background(), &p); err == nil || !strings.Contains(err.Error(), `no plan fits memory space "a" in its capacity 60 bytes (proved)`) {
		t.Errorf("capacity 60 below the load 72: error %v, want one about the capacities", err)
	}
	// Gaps are refused.
	p = workloads.Problem{Buffers: bufs, Gaps: [][]workloads.Gap{{{First: 1, Last: 1}}, nil, nil, nil}}
	if _, err := s.Plan(context.Background(), &p); !errors.Is(err, strategies.ErrUnsupportedForm) {
		t.Errorf("gaps: error %v, want ErrUnsupportedForm", err)
	}
}

func equalInt64s(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestMILPReadsCBCSolution runs milp with a fake cbc that writes a
// solution file CBC could write (a "**" line, a variable left out) and
// one it could not.
func TestMILPReadsCBCSolution(t *testing.T) {
	bin := t.TempDir()
	fake := func(solution string) {
		script := "#!/bin/sh\nfor a; do last=$a; done\nprintf '" + solution + "' > \"$last\"\n" +
			"echo 'Result - Stopped on time limit'\necho 'Objective value:                72.00000000'\necho 'Lower bound:                    64.000'\n"
		if err := os.WriteFile(filepath.Join(bin, "cbc"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	// The best greedy order gives 64, LB_load is 56: cbc runs.
	bufs := []workloads.Buffer{{ID: 0, Size: 40, First: 3, Last: 4}, {ID: 1, Size: 40, First: 1, Last: 1}, {ID: 2, Size: 16, First: 2, Last: 4}, {ID: 3, Size: 8, First: 0, Last: 2}}
	p := &workloads.Problem{Buffers: bufs}
	s, err := strategies.Lookup("milp")
	if err != nil {
		t.Fatal(err)
	}
	// z0_2 = 1: 0 below 2; z1_3 and z2_3 = 0 (left out): 3 below 1 and 2.
	fake(`Stopped on time - objective value 56.00000000\n      0 F0      56     0\n**    2 z0_2 0.9999999 0\n`)
	plan, err := s.Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{0, 8, 40, 0}; !equalInt64s(plan.Offsets, want) {
		t.Errorf("offsets %v, want %v", plan.Offsets, want)
	}
	fake(`Stopped on time - objective value 72\n      0 F0\n`)
	if _, err := s.Plan(context.Background(), p); err == nil || !strings.Contains(err.Error(), "solution.txt:2: want \"index name value reduced-cost\"") {
		t.Errorf("a short line: error %v, want one naming the file and line 2", err)
	}
}

// TestMILPKillsCBC checks that cancelling the context kills cbc and
// returns the context's error.
func TestMILPKillsCBC(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "cbc"), []byte("#!/bin/sh\nexec sleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	s, err := strategies.Lookup("milp")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	probs, _ := readOmniGoldens(t)
	p := probs["rand60"] // its first fit is above LB_load: cbc runs
	go func() {
		_, err := s.Plan(ctx, p)
		done <- err
	}()
	time.Sleep(200 * time.Millisecond) // let cbc start
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}
