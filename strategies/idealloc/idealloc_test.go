package idealloc_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "membench/plugins"
	"membench/strategies"
	"membench/strategies/internal/goldentest"
	"membench/strategies/strategytest"
	"membench/workloads"
)

// TestUpstreamGolden compares plans with upstream idealloc's (built with
// the deterministic choices of the doc comment) on random instances,
// several where boxing beats the bootstrap.
func TestUpstreamGolden(t *testing.T) { goldentest.CheckAll(t, "testdata/rand-*.golden", 10) }

// TestUpstreamInstances compares plans on idealloc's own instances.
func TestUpstreamInstances(t *testing.T) {
	dir := "../../../shared/workloads/idealloc"
	if _, err := os.Stat(dir); err != nil {
		t.Skip("no shared instances:", err)
	}
	for _, c := range []struct{ csv, gold string }{
		{"iopddl/G_1.csv", "iopddl-G_1.golden"},
		{"somas/resnet50.csv", "somas-resnet50.golden"},
	} {
		t.Run(c.gold, func(t *testing.T) {
			goldentest.Check(t, filepath.Join(dir, c.csv), filepath.Join("testdata", c.gold))
		})
	}
}

func plan(t *testing.T, spec string, p *workloads.Problem) *strategies.Plan {
	t.Helper()
	s, err := strategies.Lookup(spec)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := s.Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if err := strategies.Validate(p, pl); err != nil {
		t.Fatal(err)
	}
	return pl
}

func b(id int, size int64, first, last int) workloads.Buffer {
	return workloads.Buffer{ID: id, Size: size, First: first, Last: last}
}

func TestCases(t *testing.T) {
	for _, c := range []struct {
		name  string
		p     workloads.Problem
		offs  []int64
		arena int64
	}{
		{"no overlap: all at 0", workloads.Problem{Buffers: []workloads.Buffer{b(0, 8, 0, 1), b(1, 16, 2, 3), b(2, 4, 4, 4)}}, []int64{0, 0, 0}, 0},
		{"zero size at 0", workloads.Problem{Buffers: []workloads.Buffer{b(0, 0, 0, 9), b(1, 8, 0, 1), b(2, 8, 1, 2)}}, []int64{0, 0, 8}, 0},
		// One size: colouring rows (of two births at once, the longer
		// lived first), then best fit; single-task buffers double the
		// times.
		{"same sizes", workloads.Problem{Buffers: []workloads.Buffer{b(0, 4, 0, 0), b(1, 4, 0, 1), b(2, 4, 1, 1), b(3, 4, 2, 2)}}, []int64{4, 0, 4, 0}, 0},
		// The bootstrap: size then lifetime decreasing, first fit.
		{"bootstrap", workloads.Problem{Buffers: []workloads.Buffer{b(0, 2, 0, 3), b(1, 3, 0, 1), b(2, 3, 2, 3), b(3, 1, 0, 3)}}, []int64{3, 0, 0, 5}, 0},
		// Alignment rounds sizes up; the arena counts the rounding.
		{"alignment", workloads.Problem{Alignment: 8, Buffers: []workloads.Buffer{b(0, 3, 0, 1), b(1, 5, 1, 2)}}, []int64{0, 8}, 16},
	} {
		t.Run(c.name, func(t *testing.T) {
			pl := plan(t, "idealloc", &c.p)
			if fmt.Sprint(pl.Offsets) != fmt.Sprint(c.offs) || pl.Arena != c.arena {
				t.Errorf("offsets %v arena %d, want %v arena %d", pl.Offsets, pl.Arena, c.offs, c.arena)
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"idealloc?max_frag=0.5", "max_frag=0.5: want a number >= 1"},
		{"idealloc?max_lives=-1", "max_lives=-1"},
		{"idealloc?lives=2", "lives"},
	} {
		if _, err := strategies.Lookup(c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.spec, err, c.want)
		}
	}
	s, _ := strategies.Lookup("idealloc")
	p := &workloads.Problem{Buffers: []workloads.Buffer{b(0, 8, 0, 1), b(1, 8, 0, 1)}, Aligns: []int64{16, 0}}
	if _, err := s.Plan(context.Background(), p); !errors.Is(err, strategies.ErrUnsupportedForm) {
		t.Errorf("per-buffer alignment: %v", err)
	}
}

// TestSeeds: each seed gives one plan, run after run.
func TestSeeds(t *testing.T) {
	w, err := workloads.LoadFile("testdata/rand-303.csv")
	if err != nil {
		t.Fatal(err)
	}
	for seed := range 4 {
		spec := fmt.Sprintf("idealloc?max_lives=3&seed=%d", seed)
		a, b := plan(t, spec, w.Problem), plan(t, spec, w.Problem)
		if fmt.Sprint(a.Offsets) != fmt.Sprint(b.Offsets) {
			t.Errorf("seed %d: two plans", seed)
		}
	}
}

func TestConformance(t *testing.T) {
	s, err := strategies.Lookup("idealloc")
	if err != nil {
		t.Fatal(err)
	}
	strategytest.Run(t, s, strategies.Offsets)
}

// FuzzIdealloc plans random problems of the strategytest generator.
func FuzzIdealloc(f *testing.F) { goldentest.Fuzz(f, "idealloc?max_lives=2") }
