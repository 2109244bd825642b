package synthetic

import (
	"slices"
	"testing"

	"membench/workloads"
)

// TestTilingPlanted: every family and size law tiles tasks x capacity with
// no slack (LB_load = capacity = the planted footprint, every buffer placed)
// into exactly n buffers, and the problem's name regenerates it.
func TestTilingPlanted(t *testing.T) {
	var cases []TilingConfig
	for _, pin := range []bool{false, true} {
		for _, d := range Distributions {
			for _, n := range []int{1, 4, 5, 300, 1001} {
				if d == "dominant" && n < 4 {
					continue // refused: TestBadParams
				}
				c := DefaultTiling(n, 7)
				c.Pinwheel, c.Sizes = pin, d
				cases = append(cases, c)
			}
			c := DefaultTiling(600, 3) // high contention: few tasks
			c.Pinwheel, c.Sizes, c.Tasks, c.TimeCutPerMille = pin, d, 9, 200
			cases = append(cases, c)
		}
	}
	cases = append(cases,
		// Every block ends one task long and under 2*min wide.
		TilingConfig{N: 20, Seed: 1, Tasks: 5, Capacity: 33, Min: 4, Sizes: "zipf", DominantPercent: 90, TimeCutPerMille: 500},
		TilingConfig{N: 50, Seed: 2, Tasks: 50, Capacity: 1 << 40, Min: 1, Sizes: "bimodal", DominantPercent: 90, Pinwheel: true},
		TilingConfig{N: 2, Seed: 2, Tasks: 1, Capacity: 2, Min: 1, Sizes: "uniform", DominantPercent: 90, Pinwheel: true, TimeCutPerMille: 1000},
	)
	for _, c := range cases {
		p, off := Tiling(c)
		checkWellFormed(t, p)
		if p.Len() != c.N || len(off) != c.N {
			t.Fatalf("%s: %d buffers, %d offsets, want %d", p.Name, p.Len(), len(off), c.N)
		}
		for _, b := range p.Buffers {
			if c.N > 1 && b.Size < c.Min && c.Capacity >= c.Min {
				t.Fatalf("%s: buffer %d of %d bytes, under min %d", p.Name, b.ID, b.Size, c.Min)
			}
		}
		checkPlanted(t, p, off)
		if again := mustBuild(t, p.Name); digest(again) != digest(p) {
			t.Errorf("%s: the name builds another instance", p.Name)
		}
	}
}

// TestTilingExact pins three small instances buffer by buffer: a pinwheel
// (no straight cut crosses it), a guillotine tiling and a dominant buffer.
func TestTilingExact(t *testing.T) {
	type buf struct {
		first, last int
		size, off   int64
	}
	pin := TilingConfig{N: 5, Seed: 1, Tasks: 6, Capacity: 12, Min: 2, Sizes: "uniform", DominantPercent: 90, Pinwheel: true, TimeCutPerMille: 500}
	gil := TilingConfig{N: 6, Seed: 1, Tasks: 4, Capacity: 16, Min: 2, Sizes: "log-uniform", DominantPercent: 90, TimeCutPerMille: 500}
	dom := TilingConfig{N: 5, Seed: 3, Tasks: 5, Capacity: 100, Min: 1, Sizes: "dominant", DominantPercent: 75, TimeCutPerMille: 500}
	for _, tc := range []struct {
		c    TilingConfig
		spec string
		want []buf
	}{
		{pin, "synthetic/pinwheel?n=5&seed=1&sizes=uniform&tasks=6&capacity=12&min=2&time-cut=500",
			[]buf{{0, 3, 2, 0}, {0, 1, 10, 2}, {2, 5, 2, 10}, {2, 3, 8, 2}, {4, 5, 10, 0}}},
		{gil, "synthetic/tiling?n=6&seed=1&sizes=log-uniform&tasks=4&capacity=16&min=2&time-cut=500",
			[]buf{{0, 0, 13, 0}, {0, 0, 3, 13}, {1, 1, 3, 0}, {1, 2, 13, 3}, {2, 3, 3, 0}, {3, 3, 13, 3}}},
		{dom, "synthetic/tiling?n=5&seed=3&sizes=dominant&tasks=5&capacity=100&min=1&dominant=75&time-cut=500",
			[]buf{{0, 0, 22, 0}, {0, 4, 25, 75}, {0, 0, 53, 22}, {1, 1, 75, 0}, {2, 4, 75, 0}}},
	} {
		p, off := Tiling(tc.c)
		if p.Name != tc.spec {
			t.Errorf("name %q, want %q", p.Name, tc.spec)
		}
		if digest(mustBuild(t, tc.spec)) != digest(p) {
			t.Errorf("%s: the registry builds another instance than Tiling", tc.spec)
		}
		var got []buf
		for i, b := range p.Buffers {
			got = append(got, buf{b.First, b.Last, b.Size, off[i]})
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got %v\nwant %v", tc.spec, got, tc.want)
		}
		checkPlanted(t, p, off)
	}
}

// TestTilingLaws: the size law shapes the instance as documented.
func TestTilingLaws(t *testing.T) {
	median := func(d string) int64 {
		c := DefaultTiling(2000, 1)
		c.Sizes = d
		p, _ := Tiling(c)
		s := make([]int64, 0, p.Len())
		for _, b := range p.Buffers {
			s = append(s, b.Size)
		}
		slices.Sort(s)
		return s[len(s)/2]
	}
	u, l, z := median("uniform"), median("log-uniform"), median("zipf")
	if !(z < l && l < u) {
		t.Errorf("median sizes: uniform %d, log-uniform %d, zipf %d; want zipf < log-uniform < uniform", u, l, z)
	}
	c := DefaultTiling(1000, 4)
	c.Sizes, c.DominantPercent = "dominant", 80
	p, _ := Tiling(c)
	dom := c.Capacity * 80 / 100
	// The dominant buffer lives inside the run, neither first nor last.
	if !slices.ContainsFunc(p.Buffers, func(b workloads.Buffer) bool {
		return b.Size == dom && b.First > 0 && b.Last < c.Tasks-1
	}) {
		t.Errorf("sizes=dominant: no buffer of %d bytes inside the run", dom)
	}
}
