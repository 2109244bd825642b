package telamalloc_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	_ "membench/plugins"
	"membench/strategies"
	"membench/strategies/internal/goldentest"
	"membench/strategies/strategytest"
	"membench/workloads"
)

// TestOmniMallocGolden compares plans with OmniMalloc's C++ on random
// instances, half of them with a budget tight enough to fail attempts.
func TestOmniMallocGolden(t *testing.T) { goldentest.CheckAll(t, "testdata/rand-*.golden", 10) }

// TestOmniMallocInstance: idealloc's G_1 at OmniMalloc's defaults but
// with no timeout, as the golden was recorded.
func TestOmniMallocInstance(t *testing.T) {
	csv := "../../../shared/workloads/idealloc/iopddl/G_1.csv"
	if _, err := os.Stat(csv); err != nil {
		t.Skip("no shared instances:", err)
	}
	goldentest.Check(t, csv, "testdata/iopddl-G_1.golden")
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
		{"one buffer", workloads.Problem{Buffers: []workloads.Buffer{b(0, 8, 0, 3)}}, []int64{0}, 0},
		{"zero size at 0", workloads.Problem{Buffers: []workloads.Buffer{b(0, 0, 0, 9), b(1, 8, 0, 1), b(2, 8, 1, 2)}}, []int64{0, 0, 8}, 0},
		// The longest first (duration tier), then the larger: the
		// optimum, 16 (OmniMalloc's offsets).
		{"tiers", workloads.Problem{Buffers: []workloads.Buffer{b(0, 4, 0, 1), b(1, 8, 1, 2), b(2, 4, 2, 3), b(3, 4, 0, 3)}}, []int64{12, 4, 12, 0}, 0},
		{"alignment", workloads.Problem{Alignment: 8, Buffers: []workloads.Buffer{b(0, 3, 0, 1), b(1, 5, 1, 2)}}, []int64{0, 8}, 16},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := strategies.Lookup("telamalloc")
			if err != nil {
				t.Fatal(err)
			}
			pl, err := s.Plan(context.Background(), &c.p)
			if err != nil {
				t.Fatal(err)
			}
			if err := strategies.Validate(&c.p, pl); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(pl.Offsets) != fmt.Sprint(c.offs) || pl.Arena != c.arena {
				t.Errorf("offsets %v arena %d, want %v arena %d", pl.Offsets, pl.Arena, c.offs, c.arena)
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"telamalloc?timeout=soon", `timeout="soon"`},
		{"telamalloc?max_backtracks=-1", "max_backtracks=-1"},
		{"telamalloc?backtracks=2", "backtracks"},
	} {
		if _, err := strategies.Lookup(c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.spec, err, c.want)
		}
	}
	s, _ := strategies.Lookup("telamalloc")
	p := &workloads.Problem{Buffers: []workloads.Buffer{b(0, 8, 0, 1), b(1, 8, 0, 1)}, Fixed: []int64{0, workloads.NoOffset}}
	if _, err := s.Plan(context.Background(), p); !errors.Is(err, strategies.ErrUnsupportedForm) {
		t.Errorf("fixed offsets: %v", err)
	}
}

func TestConformance(t *testing.T) {
	s, err := strategies.Lookup("telamalloc?max_backtracks=200")
	if err != nil {
		t.Fatal(err)
	}
	strategytest.Run(t, s, strategies.Offsets)
}

// FuzzTelamalloc plans random problems of the strategytest generator.
func FuzzTelamalloc(f *testing.F) { goldentest.Fuzz(f, "telamalloc?max_backtracks=100") }
