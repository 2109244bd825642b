package strategies_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"membench/strategies"
	"membench/workloads"
)

// litertAnswer is what LiteRT's own memory_management.cc gave for one
// strategy on one input (scripts/litert-memory, testdata/litert/*.out).
type litertAnswer struct {
	strategy  string
	ids       []int
	sizes     []string // bytes, or extents joined by 'x'
	offsets   []int64
	totalSize int64
	err       string
}

type litertGolden struct {
	sizeType string
	edges    [][]int // ReallocationGraph's lists (deps inputs only)
	answers  []litertAnswer
}

func readLitertGolden(t *testing.T, path string) litertGolden {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var g litertGolden
	ints := func(line int, fields []string) []int64 {
		out := make([]int64, len(fields))
		for i, s := range fields {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, line, err)
			}
			out[i] = v
		}
		return out
	}
	toInt := func(v []int64) []int {
		out := make([]int, len(v))
		for i, x := range v {
			out[i] = int(x)
		}
		return out
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		key, rest, _ := strings.Cut(text, " ")
		last := func() *litertAnswer {
			if len(g.answers) == 0 {
				t.Fatalf("%s:%d: %s before any strategy", path, line, key)
			}
			return &g.answers[len(g.answers)-1]
		}
		switch key {
		case "size_type":
			g.sizeType = rest
		case "edges":
			v := toInt(ints(line, strings.Fields(rest)))
			if v[0] != len(g.edges) {
				t.Fatalf("%s:%d: edges of record %d, want %d", path, line, v[0], len(g.edges))
			}
			g.edges = append(g.edges, v[1:])
		case "strategy":
			g.answers = append(g.answers, litertAnswer{strategy: rest})
		case "object_ids":
			last().ids = toInt(ints(line, strings.Fields(rest)))
		case "object_sizes":
			last().sizes = strings.Fields(rest)
		case "offsets":
			last().offsets = ints(line, strings.Fields(rest))
		case "total_size":
			last().totalSize = ints(line, []string{rest})[0]
		case "error":
			last().err = rest
		default:
			t.Fatalf("%s:%d: unknown line %q", path, line, text)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestSizeTypesLiteRT requires membench's TFLite GPU planners to give
// what LiteRT's own memory_management.cc (f67457790c9c, built unmodified
// by scripts/litert-memory) gave on random inputs of every size type:
// the same object ids and object sizes or extents, the same offsets for
// offset-greedy-by-size, TFLite's refusal text for a strategy a size
// type does not dispatch, and, for a deps column, LiteRT's
// ReallocationGraph. testdata/litert/README.md says how they were made.
func TestSizeTypesLiteRT(t *testing.T) {
	csvs, err := filepath.Glob(filepath.Join("testdata", "litert", "*.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(csvs) < 30 {
		t.Fatalf("%d LiteRT goldens, want the committed set", len(csvs))
	}
	ctx := context.Background()
	for _, csv := range csvs {
		name := strings.TrimSuffix(filepath.Base(csv), ".csv")
		t.Run(name, func(t *testing.T) {
			g := readLitertGolden(t, strings.TrimSuffix(csv, ".csv")+".out")
			w, err := workloads.LoadFile(csv)
			if err != nil {
				t.Fatal(err)
			}
			p := w.Problem
			if got := p.SizeType.String(); got != g.sizeType {
				t.Fatalf("size type %s, LiteRT's %s", got, g.sizeType)
			}
			if g.edges != nil {
				// LiteRT's lists may repeat an entry (a cyclic graph);
				// membench keeps one of each, which reuse reads the same.
				for i, l := range g.edges {
					if want := slices.Compact(slices.Clone(l)); !slices.Equal(p.Reuse[i], want) {
						t.Errorf("record %d: reallocation list %v, LiteRT's %v", i, p.Reuse[i], l)
					}
				}
			}
			if len(g.answers) == 0 {
				t.Fatal("no strategies in the golden")
			}
			for _, a := range g.answers {
				s, err := strategies.Lookup(a.strategy)
				if err != nil {
					t.Fatal(err)
				}
				plan, err := s.Plan(ctx, p)
				if a.err != "" {
					if err == nil || !strings.HasSuffix(err.Error(), ": "+a.err) {
						t.Errorf("%s: error %v, want TFLite's %q", a.strategy, err, a.err)
					}
					if !errors.Is(err, strategies.ErrUnsupportedSizeType) {
						t.Errorf("%s: error %v is not ErrUnsupportedSizeType", a.strategy, err)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s: %v", a.strategy, err)
					continue
				}
				if err := strategies.Validate(p, plan); err != nil {
					t.Errorf("%s: %v", a.strategy, err)
				}
				if a.offsets != nil {
					arena := plan.Footprint
					if plan.Arena != 0 {
						arena = plan.Arena
					}
					if !slices.Equal(plan.Offsets, a.offsets) || arena != a.totalSize {
						t.Errorf("%s: offsets %v (%d), LiteRT's %v (%d)", a.strategy, plan.Offsets, arena, a.offsets, a.totalSize)
					}
					continue
				}
				var sizes []string
				if p.SizeType == workloads.SizeBytes {
					for _, s := range plan.ObjectSizes {
						sizes = append(sizes, strconv.FormatInt(s, 10))
					}
				} else {
					for _, s := range plan.ObjectShapes {
						sizes = append(sizes, s.Format(p.SizeType.Dims()))
					}
				}
				if !slices.Equal(plan.ObjectIDs, a.ids) || !slices.Equal(sizes, a.sizes) {
					t.Errorf("%s:\n got ids %v sizes %v\nLiteRT ids %v sizes %v", a.strategy, plan.ObjectIDs, sizes, a.ids, a.sizes)
				}
			}
		})
	}
}
