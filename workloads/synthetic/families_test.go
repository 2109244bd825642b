package synthetic

import (
	"slices"
	"testing"

	"membench/workloads"
)

func TestChain(t *testing.T) {
	p := Chain(ChainConfig{N: 500, Seed: 3, MinSize: 16, MaxSize: 4096})
	checkWellFormed(t, p)
	var lb int64
	for i, b := range p.Buffers {
		if b.First != i || b.Last != i+1 || b.Size%4 != 0 || b.Size < 16 || b.Size > 4096 {
			t.Fatalf("buffer %d = %+v", i, b)
		}
		if i > 0 {
			lb = max(lb, b.Size+p.Buffers[i-1].Size)
		}
	}
	if got := p.LoadBound(); got != lb {
		t.Fatalf("LB_load %d, want the largest neighbour sum %d", got, lb)
	}
}

func TestRandomIntervals(t *testing.T) {
	c := IntervalsConfig{N: 20000, Seed: 4, Tasks: 5000, MaxLen: 100, MinSize: 4, MaxSize: 1 << 20}
	p := RandomIntervals(c)
	checkWellFormed(t, p)
	long := 0
	for i, b := range p.Buffers {
		if i > 0 && b.First < p.Buffers[i-1].First {
			t.Fatalf("buffer %d starts at %d before %d", i, b.First, p.Buffers[i-1].First)
		}
		if b.Last >= c.Tasks || b.Last-b.First >= c.MaxLen {
			t.Fatalf("buffer %d = %+v outside horizon %d or maxlen %d", i, b, c.Tasks, c.MaxLen)
		}
		if b.Last-b.First >= 10 {
			long++
		}
	}
	// Log-uniform lengths in [1, 100]: P(len > 10) = 1 - log(10)/log(100) ~ 1/2.
	if long < 9000 || long > 11000 {
		t.Errorf("%d of 20000 lifetimes are >= 11 tasks, want about half", long)
	}
}

func TestRepeatedShapes(t *testing.T) {
	c := RepeatedConfig{N: 1000, Seed: 2, K: 3, Block: 40, MinSize: 1 << 10, MaxSize: 1 << 20}
	p := RepeatedShapes(c)
	checkWellFormed(t, p)
	sizes := map[int64]bool{}
	for _, b := range p.Buffers {
		sizes[b.Size] = true
	}
	if len(sizes) != 3 {
		t.Fatalf("%d distinct sizes, want 3", len(sizes))
	}
	// Copies repeat the first block's sizes and lifetimes, shifted in time
	// (lifetimes clamped at the end of the graph).
	ops := p.Buffers[c.Block].First - p.Buffers[0].First
	end := p.MaxTask()
	for i := c.Block; i < p.Len(); i++ {
		a, b := p.Buffers[i-c.Block], p.Buffers[i]
		if b.Size != a.Size || b.First != a.First+ops || b.Last != min(a.Last+ops, end) {
			t.Fatalf("buffer %d = %+v does not repeat %+v shifted by %d", i, b, a, ops)
		}
	}
}

// checkPlanted asserts that the planted offsets are a valid plan with
// footprint = capacity = LB_load: no two buffers live at a task overlap.
func checkPlanted(t *testing.T, p *workloads.Problem, offsets []int64) {
	t.Helper()
	if got := p.LoadBound(); got != p.Capacity {
		t.Fatalf("LB_load %d, want capacity %d", got, p.Capacity)
	}
	type span struct{ lo, hi int64 }
	live := map[int][]span{}
	for i, b := range p.Buffers {
		if offsets[i] < 0 || offsets[i]+b.Size > p.Capacity {
			t.Fatalf("buffer %d at %d+%d outside capacity %d", i, offsets[i], b.Size, p.Capacity)
		}
		for task := b.First; task <= b.Last; task++ {
			live[task] = append(live[task], span{offsets[i], offsets[i] + b.Size})
		}
	}
	for task, ss := range live {
		slices.SortFunc(ss, func(a, b span) int { return int(a.lo - b.lo) })
		// A tiling: the live buffers cover [0, capacity) exactly.
		at := int64(0)
		for _, s := range ss {
			if s.lo != at {
				t.Fatalf("task %d: gap or overlap at %d (next buffer at %d)", task, at, s.lo)
			}
			at = s.hi
		}
		if at != p.Capacity {
			t.Fatalf("task %d: live buffers cover %d of %d", task, at, p.Capacity)
		}
	}
}

func TestAdversarialPlantedOptimum(t *testing.T) {
	for _, c := range []AdversarialConfig{
		DefaultAdversarial(1000, 1),
		DefaultAdversarial(1, 1),
		{N: 300, Seed: 9, Tasks: 20, Capacity: 4096, TimeCutPerMille: 300},
		{N: 60, Seed: 2, Tasks: 6, Capacity: 10, TimeCutPerMille: 1000}, // 60 cells: all single
		{N: 50, Seed: 5, Tasks: 50, Capacity: 1 << 40, TimeCutPerMille: 0},
	} {
		p, off := AdversarialGreedy(c)
		checkWellFormed(t, p)
		if p.Len() != c.N || len(off) != c.N {
			t.Fatalf("%s: %d buffers, %d offsets", p.Name, p.Len(), len(off))
		}
		checkPlanted(t, p, off)
	}
}

func BenchmarkFamilies(b *testing.B) {
	gens := []struct {
		name string
		gen  func(n int) *workloads.Problem
	}{
		{"chain", func(n int) *workloads.Problem {
			return Chain(ChainConfig{N: n, Seed: 1, MinSize: 1 << 10, MaxSize: 64 << 20})
		}},
		{"random-intervals", func(n int) *workloads.Problem {
			return RandomIntervals(IntervalsConfig{N: n, Seed: 1, Tasks: n, MaxLen: 64, MinSize: 1 << 10, MaxSize: 64 << 20})
		}},
		{"repeated-shapes", func(n int) *workloads.Problem {
			return RepeatedShapes(RepeatedConfig{N: n, Seed: 1, K: 4, Block: 32, MinSize: 1 << 10, MaxSize: 64 << 20})
		}},
		{"adversarial-greedy", func(n int) *workloads.Problem {
			p, _ := AdversarialGreedy(DefaultAdversarial(n, 1))
			return p
		}},
	}
	for _, g := range gens {
		for _, n := range []int{1_000_000, 10_000_000} {
			b.Run(g.name+"/"+sizeName(n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					sink = g.gen(n)
				}
				sink = nil
			})
		}
	}
}
