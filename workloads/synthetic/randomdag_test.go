package synthetic

import (
	"slices"
	"testing"

	"membench/workloads"
)

func TestRandomDAGShape(t *testing.T) {
	for _, tc := range []struct {
		cfg      DAGConfig
		distinct int // 0: continuous
	}{
		{DefaultDAG(300, 11), 0},
		{func() DAGConfig { c := DefaultDAG(400, 1); c.K = 4; return c }(), 4},
		{func() DAGConfig { c := DefaultDAG(20000, 7); c.K = 8; c.Outputs = 2; return c }(), 8},
		{func() DAGConfig { c := DefaultDAG(20000, 5); c.Outputs = 3; c.MinSize, c.MaxSize = 100, 200; return c }(), 0},
	} {
		c := tc.cfg
		p := RandomDAG(c)
		checkWellFormed(t, p)
		if p.Len() != c.N {
			t.Fatalf("%s: %d buffers", c.Spec(), p.Len())
		}
		sizes := map[int64]bool{}
		outs := map[int]int{}
		near, skip := 0, 0
		last := p.MaxTask()
		for i, b := range p.Buffers {
			if i > 0 && b.First < p.Buffers[i-1].First || i > 0 && b.First > p.Buffers[i-1].First+1 {
				t.Fatalf("%s: buffer %d starts at %d after %d: ops must be consecutive", c.Spec(), i, b.First, p.Buffers[i-1].First)
			}
			if b.Size%c.Elem != 0 || b.Size < c.MinSize || b.Size > c.MaxSize {
				t.Fatalf("%s: size %d outside [%d, %d] or not a multiple of %d", c.Spec(), b.Size, c.MinSize, c.MaxSize, c.Elem)
			}
			sizes[b.Size] = true
			outs[b.First]++
			switch span := b.Last - b.First; {
			case span >= 1 && span <= 8:
				near++
			case span > 8 && span <= 64:
				skip++
			case span == 0 && b.First != last:
				t.Fatalf("%s: buffer %d is never consumed", c.Spec(), i)
			}
		}
		for op, k := range outs {
			if k > c.Outputs {
				t.Fatalf("%s: op %d has %d outputs", c.Spec(), op, k)
			}
		}
		if tc.distinct > 0 && len(sizes) != tc.distinct {
			t.Errorf("%s: %d distinct sizes, want %d", c.Spec(), len(sizes), tc.distinct)
		}
		// Most tensors die within 8 ops; roughly one in ten is a skip.
		if n := p.Len(); near < n*8/10 || skip < n/20 || skip > n/6 {
			t.Errorf("%s: %d near, %d skip of %d", c.Spec(), near, skip, n)
		}
	}
}

// Sizes are log-uniform: each factor-of-two band of [1K, 64M] gets about
// 1/16 of the draws.
func TestRandomDAGLogUniform(t *testing.T) {
	p := RandomDAG(DefaultDAG(160000, 2))
	var bands [16]int
	for _, b := range p.Buffers {
		k := 0
		for s := b.Size >> 11; s > 0; s >>= 1 {
			k++
		}
		bands[k]++
	}
	for k, c := range bands {
		if c < 9000 || c > 11000 {
			t.Errorf("band [2^%d, 2^%d) holds %d of 160000, want about 10000", 10+k, 11+k, c)
		}
	}
}

func TestRandomDAGSeedsDiffer(t *testing.T) {
	a, b := RandomDAG(DefaultDAG(100, 1)), RandomDAG(DefaultDAG(100, 2))
	if slices.Equal(a.Buffers, b.Buffers) {
		t.Fatal("seeds 1 and 2 give the same problem")
	}
	if RandomDAG(DefaultDAG(0, 1)).Len() != 0 {
		t.Fatal("n=0 not empty")
	}
}

func TestRandomDAGPanicsOnBadConfig(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	RandomDAG(DAGConfig{N: 1})
}

var sink *workloads.Problem

func BenchmarkRandomDAG(b *testing.B) {
	for _, n := range []int{1_000_000, 10_000_000} {
		b.Run(sizeName(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = RandomDAG(DefaultDAG(n, 1))
			}
			sink = nil
		})
	}
}

func sizeName(n int) string {
	switch n {
	case 1_000_000:
		return "n=1e6"
	case 10_000_000:
		return "n=1e7"
	}
	return "n=?"
}
