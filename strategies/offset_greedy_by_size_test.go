package strategies

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"membench/workloads"
	"membench/workloads/synthetic"
)

// refOffsetGreedyBySize is a line-by-line port of TFLite's
// GreedyBySizeAssignment, O(n^2): the reference the indexed version must
// match exactly.
func refOffsetGreedyBySize(bufs []workloads.Buffer, align int64) ([]int64, int64) {
	align = max(align, 1)
	order := make([]int, len(bufs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		switch {
		case bufs[x].Size > bufs[y].Size:
			return -1
		case bufs[x].Size < bufs[y].Size:
			return 1
		}
		return 0
	})
	offsets := make([]int64, len(bufs))
	var allocs []int // placed tensors by offset; a new one goes after equal offsets
	var total int64
	for _, i := range order {
		rec := bufs[i]
		best, bestDiff, prev := int64(-1), int64(math.MaxInt64), int64(0)
		for _, j := range allocs {
			if bufs[j].Last < rec.First || bufs[j].First > rec.Last {
				continue
			}
			cur := offsets[j]
			if cur >= prev {
				if d := cur - prev; d >= rec.Size && d < bestDiff {
					bestDiff, best = d, prev
				}
			}
			prev = max(prev, AlignUp(cur+bufs[j].Size, align))
		}
		if best < 0 {
			best = prev
		}
		pos := 0
		for pos < len(allocs) && offsets[allocs[pos]] <= best {
			pos++
		}
		allocs = slices.Insert(allocs, pos, i)
		offsets[i] = best
		total = max(total, best+rec.Size)
	}
	return offsets, total
}

// randomTieProblems returns DAG-shaped problems rich in ties: few distinct
// sizes, tiny sizes (so gaps fit exactly), zero sizes, several outputs
// per task, and shuffled record order.
func randomTieProblems(count int) []*workloads.Problem {
	r := rand.New(rand.NewPCG(7, 11))
	var out []*workloads.Problem
	for s := range count {
		c := synthetic.DefaultDAG(r.IntN(300), int64(s))
		c.K = []int{0, 1, 2, 3, 8}[r.IntN(5)]
		c.Outputs = 1 + r.IntN(3)
		if r.IntN(2) == 0 {
			c.MinSize, c.MaxSize, c.Elem = 1, 64, 1
		}
		if c.K > 0 && c.MaxSize == 64 {
			c.K = min(c.K, 64)
		}
		p := synthetic.RandomDAG(c)
		if r.IntN(3) == 0 {
			for i := range p.Buffers {
				if r.IntN(8) == 0 {
					p.Buffers[i].Size = 0
				}
			}
		}
		if r.IntN(2) == 0 {
			r.Shuffle(len(p.Buffers), func(i, j int) { p.Buffers[i], p.Buffers[j] = p.Buffers[j], p.Buffers[i] })
		}
		out = append(out, p)
	}
	return out
}

func TestOffsetGreedyBySizeMatchesReference(t *testing.T) {
	problems := randomTieProblems(300)
	big := synthetic.DefaultDAG(3000, 9)
	problems = append(problems, synthetic.RandomDAG(big))
	big.K = 3
	problems = append(problems, synthetic.RandomDAG(big))
	problems = append(problems, denseOverlap(3000, 64), denseOverlap(3000, 1<<20))
	for k, p := range problems {
		for _, align := range []int64{1, 128} {
			want, wantTotal := refOffsetGreedyBySize(p.Buffers, align)
			got, total, err := offsetGreedyBySizeOffsets(context.Background(), p.Buffers, align)
			if err != nil {
				t.Fatalf("problem %d (%s) align %d: %v", k, p.Name, align, err)
			}
			if !slices.Equal(got, want) || total != wantTotal {
				t.Fatalf("problem %d (%s) align %d: offsets differ from the reference (total %d, want %d)",
					k, p.Name, align, total, wantTotal)
			}
		}
	}
}

func TestOffsetGreedyBySizePlans(t *testing.T) {
	tests := []struct {
		name  string
		recs  [][3]int64 // size, first, last
		align int64
		want  []int64
		total int64
	}{
		{"empty", nil, 1, []int64{}, 0},
		{"one", [][3]int64{{16, 0, 1}}, 1, []int64{0}, 16},
		// D (size 10, task 1) finds the hole under C left by A ending at task 0.
		{"hole", [][3]int64{{100, 0, 0}, {60, 1, 1}, {50, 0, 1}, {10, 1, 1}}, 1, []int64{0, 0, 100, 60}, 150},
		{"hole aligned", [][3]int64{{100, 0, 0}, {60, 1, 1}, {50, 0, 1}, {10, 1, 1}}, 64, []int64{0, 0, 128, 64}, 178},
		{"adjacent lifetimes conflict", [][3]int64{{8, 0, 1}, {8, 1, 2}}, 1, []int64{0, 8}, 16},
		{"equal sizes keep record order", [][3]int64{{8, 0, 2}, {8, 1, 3}, {8, 2, 4}}, 1, []int64{0, 8, 16}, 24},
		// A zero-size tensor fits the zero-length gap below the lowest tensor.
		{"zero sizes", [][3]int64{{0, 0, 3}, {8, 0, 3}, {0, 1, 2}}, 1, []int64{0, 0, 0}, 8},
		{"unsorted input", [][3]int64{{8, 5, 6}, {16, 0, 1}, {8, 1, 5}}, 1, []int64{0, 0, 16}, 24},
		{"huge sizes", [][3]int64{{1 << 40, 0, 1}, {1 << 41, 1, 2}, {3, 2, 3}}, 1, []int64{1 << 41, 0, 1 << 41}, 3 << 40},
		{"sparse task ids", [][3]int64{{8, 0, 1 << 40}, {8, 1 << 39, 1 << 39}, {8, 1<<40 + 1, 1<<40 + 1}}, 1, []int64{0, 8, 0}, 16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bufs := make([]workloads.Buffer, len(tc.recs))
			for i, r := range tc.recs {
				bufs[i] = workloads.Buffer{ID: i, Size: r[0], First: int(r[1]), Last: int(r[2])}
			}
			got, total, err := offsetGreedyBySizeOffsets(context.Background(), bufs, tc.align)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) || total != tc.total {
				t.Errorf("offsets %v total %d, want %v total %d", got, total, tc.want, tc.total)
			}
			ref, refTotal := refOffsetGreedyBySize(bufs, tc.align)
			if !slices.Equal(got, ref) || total != refTotal {
				t.Errorf("reference gives %v total %d", ref, refTotal)
			}
		})
	}
}

func TestOffsetGreedyBySizeErrors(t *testing.T) {
	s, err := Lookup("offset-greedy-by-size")
	if err != nil {
		t.Fatal(err)
	}
	p := &workloads.Problem{Buffers: []workloads.Buffer{{ID: 0, Size: 4, First: 0, Last: 1}, {ID: 7, Size: 4, First: 3, Last: 2}}}
	_, err = s.Plan(context.Background(), p)
	if err == nil || !strings.Contains(err.Error(), "Error while calculating the assignment") ||
		!strings.Contains(err.Error(), "buffer 1 (id 7) has first task 3 after last task 2") {
		t.Errorf("first > last: err = %v", err)
	}

	checkCancelled(t, s)
}

func TestOffsetGreedyBySizePlanShape(t *testing.T) {
	s, err := Lookup("offset-greedy-by-size")
	if err != nil {
		t.Fatal(err)
	}
	p := synthetic.RandomDAG(synthetic.DefaultDAG(500, 3))
	p.Alignment = 64
	plan, err := s.Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if plan.IsObjects() || plan.ObjectSizes != nil {
		t.Errorf("offset planner returned objects")
	}
	if plan.Footprint != Footprint(p.Buffers, plan.Offsets) {
		t.Errorf("footprint %d, recomputed %d", plan.Footprint, Footprint(p.Buffers, plan.Offsets))
	}
	for i, o := range plan.Offsets {
		if o%64 != 0 {
			t.Fatalf("offset %d of buffer %d not aligned to 64", o, i)
		}
	}
}

// benchSizes are the sizes the speed table uses.
var benchSizes = []int{1_000, 5_000, 20_000}

func benchPlan(b *testing.B, name string, n int) {
	s, err := Lookup(name)
	if err != nil {
		b.Fatal(err)
	}
	p := synthetic.RandomDAG(synthetic.DefaultDAG(n, 1))
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Plan(context.Background(), p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOffsetGreedyBySize(b *testing.B) {
	for _, n := range append(benchSizes, 1_000_000) {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) { benchPlan(b, "offset-greedy-by-size", n) })
	}
}

// BenchmarkOffsetGreedyBySizeReference times the O(n^2) TFLite port, for
// comparison with the indexed version.
func BenchmarkOffsetGreedyBySizeReference(b *testing.B) {
	for _, n := range benchSizes[:2] { // O(n^2): seconds at 20,000
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			p := synthetic.RandomDAG(synthetic.DefaultDAG(n, 1))
			for b.Loop() {
				refOffsetGreedyBySize(p.Buffers, 1)
			}
		})
	}
}

// denseOverlap returns n buffers with their own lifetimes, all live at
// task n, sizes 1..maxSize (one in 16 zero): each buffer overlaps every
// placed one, and the offset planner takes its list of all of them.
func denseOverlap(n int, maxSize int64) *workloads.Problem {
	r := rand.New(rand.NewPCG(3, uint64(n)))
	p := &workloads.Problem{Name: "dense-overlap", Buffers: make([]workloads.Buffer, n)}
	for i := range p.Buffers {
		size := 1 + r.Int64N(maxSize)
		if r.IntN(16) == 0 {
			size = 0
		}
		p.Buffers[i] = workloads.Buffer{ID: i, Size: size, First: r.IntN(n), Last: n + r.IntN(n)}
	}
	return p
}

// ogbsLongLived returns n buffers starting at random tasks below n and
// living n/4 to 3n/4 tasks, so that each overlaps about half of the others
// and the buffers starting inside its lifetime are a long range of ids;
// sizes are uniform in [1, maxSize].
func ogbsLongLived(n int, maxSize int64, rng *rand.Rand) []workloads.Buffer {
	bufs := make([]workloads.Buffer, n)
	for i := range bufs {
		f := rng.IntN(n)
		bufs[i] = workloads.Buffer{ID: i, Size: 1 + rng.Int64N(maxSize), First: f, Last: f + n/4 + rng.IntN(n/2+1)}
	}
	return bufs
}

// ogbsOverlap returns n buffers starting at random tasks below n and
// living up to n/10 tasks, with sizes uniform in [1, 2^20]: each overlaps
// about a tenth of the others, far too few for the dense path.
func ogbsOverlap(n int, rng *rand.Rand) []workloads.Buffer {
	bufs := make([]workloads.Buffer, n)
	for i := range bufs {
		f := rng.IntN(n)
		bufs[i] = workloads.Buffer{ID: i, Size: 1 + rng.Int64N(1<<20), First: f, Last: f + rng.IntN(n/10+1)}
	}
	return bufs
}

func TestOffsetGreedyBySizeOverlapMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 9))
	shapes := []struct {
		name string
		gen  func(n int) []workloads.Buffer
	}{
		{"long-lived", func(n int) []workloads.Buffer { return ogbsLongLived(n, 1<<20, rng) }},
		{"long-lived equal sizes", func(n int) []workloads.Buffer { return ogbsLongLived(n, 1, rng) }},
		{"long-lived few sizes", func(n int) []workloads.Buffer {
			bufs := ogbsLongLived(n, 3, rng)
			for i := range bufs {
				bufs[i].Size *= 48
				if rng.IntN(40) == 0 {
					bufs[i].Size = 0
				}
			}
			return bufs
		}},
		{"tenth", func(n int) []workloads.Buffer { return ogbsOverlap(n, rng) }},
		{"heavy overlap", func(n int) []workloads.Buffer {
			return heavyOverlapBuffers(n, rng, func() int64 { return 1 + rng.Int64N(1000) })
		}},
		{"few tasks", func(n int) []workloads.Buffer {
			return fewTaskBuffers(n, 1+rng.IntN(6), rng, func() int64 { return 16 << rng.IntN(3) })
		}},
	}
	for _, shape := range shapes {
		t.Run(shape.name, func(t *testing.T) {
			for trial := range 40 {
				bufs := shape.gen(1 + rng.IntN(600))
				if trial%2 == 1 {
					rng.Shuffle(len(bufs), func(i, j int) { bufs[i], bufs[j] = bufs[j], bufs[i] })
				}
				for _, align := range []int64{1, 64} {
					want, wantTotal := refOffsetGreedyBySize(bufs, align)
					got, total, err := offsetGreedyBySizeOffsets(context.Background(), bufs, align)
					if err != nil {
						t.Fatalf("trial %d align %d: %v", trial, align, err)
					}
					if !slices.Equal(got, want) || total != wantTotal {
						t.Fatalf("trial %d align %d (%d buffers): offsets differ from the reference (total %d, want %d)",
							trial, align, len(bufs), total, wantTotal)
					}
				}
			}
		})
	}
}

// checkCancelled checks that s stops with context.Canceled, given a
// cancelled context and a problem it would take a while over.
func checkCancelled(t *testing.T, s Strategy) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	big := synthetic.RandomDAG(synthetic.DefaultDAG(100_000, 1))
	if _, err := s.Plan(ctx, big); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v, want context.Canceled", err)
	}
}
