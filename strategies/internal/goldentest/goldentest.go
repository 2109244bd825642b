// Package goldentest checks ported planners against their upstream's
// plans stored as golden files, and fuzzes them with the conformance
// suite's checks.
//
// A golden file holds comment lines ("# ..."), the strategy spec ("SPEC
// name?params"), upstream's offsets ("OFF k offset", k counting the
// problem's non-empty buffers in order) and, optionally, upstream's own
// footprint ("MAKESPAN m").
package goldentest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"membench/strategies"
	"membench/strategies/strategytest"
	"membench/workloads"
)

// Golden is one golden file's content.
type Golden struct {
	Spec     string
	Offsets  map[int]int64
	Makespan int64 // 0: not given
}

// Read parses a golden file, failing t on a malformed line.
func Read(t testing.TB, path string) Golden {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g := Golden{Offsets: map[int]int64{}}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		var k int
		var off int64
		switch text := sc.Text(); {
		case strings.HasPrefix(text, "#"):
		case strings.HasPrefix(text, "SPEC "):
			g.Spec = strings.TrimPrefix(text, "SPEC ")
		case strings.HasPrefix(text, "OFF "):
			if _, err := fmt.Sscanf(text, "OFF %d %d", &k, &off); err != nil {
				t.Fatalf("%s:%d: %v", path, line, err)
			}
			g.Offsets[k] = off
		case strings.HasPrefix(text, "MAKESPAN "):
			if _, err := fmt.Sscanf(text, "MAKESPAN %d", &g.Makespan); err != nil {
				t.Fatalf("%s:%d: %v", path, line, err)
			}
		default:
			t.Fatalf("%s:%d: unexpected line %q", path, line, text)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return g
}

// Check plans the MiniMalloc CSV csv with the golden file gold's spec and
// requires a valid plan with upstream's offsets and footprint.
func Check(t *testing.T, csv, gold string) {
	t.Helper()
	w, err := workloads.LoadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	g := Read(t, gold)
	s, err := strategies.Lookup(g.Spec)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Plan(context.Background(), w.Problem)
	if err != nil {
		t.Fatal(err)
	}
	if err := strategies.Validate(w.Problem, plan); err != nil {
		t.Fatal(err)
	}
	if g.Makespan != 0 && plan.Footprint != g.Makespan {
		t.Errorf("footprint %d, upstream's %d", plan.Footprint, g.Makespan)
	}
	k, diffs := 0, 0
	for i, b := range w.Problem.Buffers {
		if b.Size == 0 {
			continue
		}
		if want, ok := g.Offsets[k]; (!ok || plan.Offsets[i] != want) && diffs < 5 {
			t.Errorf("buffer %d: offset %d, upstream %d (given: %v)", i, plan.Offsets[i], want, ok)
			diffs++
		}
		k++
	}
	if k != len(g.Offsets) {
		t.Errorf("%d non-empty buffers, upstream placed %d", k, len(g.Offsets))
	}
}

// Fuzz runs strategytest.Check with the offset planner spec on random
// problems of strategytest's generator, up to 40 buffers.
func Fuzz(f *testing.F, spec string) {
	for seed := range uint64(8) {
		f.Add(seed, uint8(12))
	}
	s, err := strategies.Lookup(spec)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, seed uint64, n uint8) {
		p := strategytest.RandomProblem(seed, int(n%40)+1)
		if err := strategytest.Check(s, strategies.Offsets, p); err != nil {
			t.Fatal(err)
		}
	})
}

// CheckAll runs Check as a subtest for each golden file matching pattern,
// its input the CSV of the same name; it fails with fewer than least.
func CheckAll(t *testing.T, pattern string, least int) {
	golds, err := filepath.Glob(pattern)
	if err != nil || len(golds) < least {
		t.Fatalf("%s: %d golden files (%v), want at least %d", pattern, len(golds), err, least)
	}
	for _, g := range golds {
		t.Run(filepath.Base(g), func(t *testing.T) {
			Check(t, strings.TrimSuffix(g, ".golden")+".csv", g)
		})
	}
}
