package kernel

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCompSet adds random ranges to a compSet and checks, after each add,
// that it holds what MergeComp gives on one flat list, that every block's
// longest gap is right, and that the spans gapSpans gives leave the same
// gaps at least some length long as the flat list, and the same top.
func TestCompSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 20 {
		var s compSet
		var flat []Comp
		span := int64(100 + rng.IntN(20000))
		for k := range 1000 {
			lo := rng.Int64N(span)
			c := Comp{lo, lo + rng.Int64N(1+span/200)}
			s.add(c)
			flat = MergeComp(flat, c)
			if got := s.appendTo(nil); !slices.Equal(got, flat) {
				t.Fatalf("trial %d, add %d of %v: set %v, want %v", trial, k, c, got, flat)
			}
			for b, bl := range s.blocks {
				want := bl.maxGap
				bl.setMaxGap()
				if bl.maxGap != want || len(bl.c) == 0 || len(bl.c) > 2*compBlockSize {
					t.Fatalf("trial %d, add %d: block %d has %d ranges, longest gap %d recorded, %d true",
						trial, k, b, len(bl.c), want, bl.maxGap)
				}
			}
			minLen := 1 + rng.Int64N(1+span/50)
			w, ref := NewGapWalk(s.gapSpans(nil, minLen)), NewGapWalk(flat)
			for {
				var start, end, rs, re int64
				var ok, rok bool
				for {
					if start, end, ok = w.Next(); !ok || end-start >= minLen {
						break
					}
				}
				for {
					if rs, re, rok = ref.Next(); !rok || re-rs >= minLen {
						break
					}
				}
				if start != rs || end != re || ok != rok {
					t.Fatalf("trial %d, add %d, min %d: gap [%d,%d) %v, want [%d,%d) %v", trial, k, minLen, start, end, ok, rs, re, rok)
				}
				if !ok {
					break
				}
			}
			if w.Top != ref.Top {
				t.Fatalf("trial %d, add %d: top %d, want %d", trial, k, w.Top, ref.Top)
			}
		}
		if len(s.blocks) < 2 {
			t.Errorf("trial %d: %d block(s): the test meant to cross blocks", trial, len(s.blocks))
		}
	}
}

// TestCompIDTreeGather checks that the components gathered for a range of
// ids cover exactly the placed ranges of those ids, each node's run
// sorted.
func TestCompIDTreeGather(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	covered := func(cs []Comp) []bool {
		at := make([]bool, 2200)
		for _, c := range cs {
			for x := c.Lo; x < c.Hi; x++ {
				at[x] = true
			}
		}
		return at
	}
	for trial := range 100 {
		n := 1 + rng.IntN(300)
		tree := newCompIDTree(int32(n))
		placed := make([]Comp, n)
		for id := range placed {
			placed[id].Lo = -1
		}
		// Rounds of placing some buffers, then gathering some ranges.
		order := rng.Perm(n)
		for len(order) > 0 {
			k := 1 + rng.IntN(len(order))
			for _, id := range order[:k] {
				lo := rng.Int64N(2000)
				placed[id] = Comp{lo, lo + 1 + rng.Int64N(100)}
				tree.place(int32(id))
			}
			order = order[k:]
			for range 3 {
				lo := int32(rng.IntN(n + 1))
				hi := lo + int32(rng.IntN(n-int(lo)+1))
				comps, runs, start := tree.gather(nil, nil, placed, lo, hi)
				for k, r := range runs {
					end := start
					if k+1 < len(runs) {
						end = int(runs[k+1])
					}
					if !slices.IsSortedFunc(comps[r:end], func(a, b Comp) int { return cmp.Compare(a.Lo, b.Lo) }) {
						t.Fatalf("trial %d: run %d not sorted: %v", trial, k, comps[r:end])
					}
				}
				if got, want := covered(comps), covered(appendPlaced(nil, placed[lo:hi])); !slices.Equal(got, want) {
					t.Fatalf("trial %d: ids [%d, %d) of %d: gathered %v, placed %v", trial, lo, hi, n, comps, placed[lo:hi])
				}
			}
		}
	}
}
