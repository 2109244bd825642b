package kernel

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// mergeCompOld is MergeComp as it was before its fast path for ranges at
// the top of the list: a binary search for every range. It is the
// reference of TestMergeCompMatchesOld and the "old" side of
// BenchmarkMergeComp.
func mergeCompOld(l []Comp, c Comp) []Comp {
	i, j := 0, len(l)
	for i < j {
		h := int(uint(i+j) >> 1)
		if l[h].Hi < c.Lo {
			i = h + 1
		} else {
			j = h
		}
	}
	j = i
	for ; j < len(l) && l[j].Lo <= c.Hi; j++ {
		c.Lo, c.Hi = min(c.Lo, l[j].Lo), max(c.Hi, l[j].Hi)
	}
	if j == i+1 {
		l[i] = c
		return l
	}
	return slices.Replace(l, i, j, c)
}

// mergeStream returns n closed ranges to merge one after another: mostly
// rising (as ranges placed by first fit come), some anywhere below, some
// touching or covering what came before, zero-length ones among them; on
// a sparse address space (few merges) or a dense one (most join others).
func mergeStream(r *rand.Rand, n int, dense bool) []Comp {
	space := int64(100 * n)
	if dense {
		space = int64(n)
	}
	var top int64
	out := make([]Comp, n)
	for k := range out {
		var lo int64
		switch r.IntN(4) {
		case 0, 1: // at or above the top
			lo = top + r.Int64N(4)
		default:
			lo = r.Int64N(max(top, 1) + 1)
		}
		size := r.Int64N(1 + space/int64(max(1, n/4)))
		if r.IntN(10) == 0 {
			size = 0
		}
		out[k] = Comp{Lo: lo, Hi: lo + size}
		top = max(top, out[k].Hi)
	}
	return out
}

// TestMergeCompMatchesOld merges random streams of ranges one by one with
// MergeComp and with the former binary search for each (mergeCompOld),
// on lists with and without spare capacity, and requires the same list
// after every merge: ranges above the top, touching the last one alone
// or with others, covering several, below everything, zero-length.
func TestMergeCompMatchesOld(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 7))
	for trial := range 400 {
		n := 1 + r.IntN(200)
		stream := mergeStream(r, n, trial%2 == 1)
		var a, b []Comp
		if trial%3 == 0 { // room reserved, as the index's nodes have
			a, b = make([]Comp, 0, n), make([]Comp, 0, n)
		}
		for k, c := range stream {
			a, b = MergeComp(a, c), mergeCompOld(b, c)
			if !slices.Equal(a, b) {
				t.Fatalf("trial %d, merge %d of %v: got %v, want %v", trial, k, c, a, b)
			}
		}
	}
	// The fast paths' edges, one by one.
	for _, tc := range []struct {
		l    []Comp
		c    Comp
		want []Comp
	}{
		{nil, Comp{3, 5}, []Comp{{3, 5}}},
		{[]Comp{{0, 2}}, Comp{3, 5}, []Comp{{0, 2}, {3, 5}}},
		{[]Comp{{0, 2}}, Comp{2, 5}, []Comp{{0, 5}}},                                 // touches the last
		{[]Comp{{4, 6}}, Comp{0, 4}, []Comp{{0, 6}}},                                 // touches it from below
		{[]Comp{{4, 6}}, Comp{0, 3}, []Comp{{0, 3}, {4, 6}}},                         // below the only one
		{[]Comp{{0, 1}, {4, 6}}, Comp{2, 9}, []Comp{{0, 1}, {2, 9}}},                 // covers the last
		{[]Comp{{0, 1}, {4, 6}}, Comp{1, 5}, []Comp{{0, 6}}},                         // joins the last two
		{[]Comp{{0, 1}, {4, 6}, {8, 9}}, Comp{5, 7}, []Comp{{0, 1}, {4, 7}, {8, 9}}}, // inside
	} {
		got := MergeComp(slices.Clone(tc.l), tc.c)
		if !slices.Equal(got, tc.want) {
			t.Errorf("MergeComp(%v, %v) = %v, want %v", tc.l, tc.c, got, tc.want)
		}
	}
}

// BenchmarkMergeComp merges streams of 4,096 ranges (mergeStream, sparse
// and dense) into lists with room for them, with MergeComp ("new") and
// the former binary search for each ("old"), in one process.
//
//	go test ./strategies/internal/kernel -run '^$' -bench MergeComp -count 5
func BenchmarkMergeComp(b *testing.B) {
	for _, dense := range []bool{false, true} {
		stream := mergeStream(rand.New(rand.NewPCG(1, 2)), 4096, dense)
		name := map[bool]string{false: "sparse", true: "dense"}[dense]
		for _, v := range []struct {
			name  string
			merge func([]Comp, Comp) []Comp
		}{{"old", mergeCompOld}, {"new", MergeComp}} {
			b.Run(name+"/"+v.name, func(b *testing.B) {
				l := make([]Comp, 0, len(stream))
				for b.Loop() {
					l = l[:0]
					for _, c := range stream {
						l = v.merge(l, c)
					}
				}
			})
		}
	}
}
