package exact

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestUndoForest checks the union-find that rebalanced undoes against
// one joined afresh: after each union and each undo, two buffers are in
// one class exactly when the unions still standing join them.
func TestUndoForest(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 1))
	for trial := range 200 {
		n := 2 + rng.IntN(30)
		u := newUndoForest(n)
		var done [][2]int32 // unions asked, in order
		var marks []int     // len(done) at each mark
		var hist []int      // len(u.hist) at each mark
		for range 60 {
			switch r := rng.IntN(10); {
			case r < 6:
				a, b := int32(rng.IntN(n)), int32(rng.IntN(n))
				u.union(a, b)
				done = append(done, [2]int32{a, b})
			case r < 8:
				marks, hist = append(marks, len(done)), append(hist, len(u.hist))
			case len(marks) > 0:
				done = done[:marks[len(marks)-1]]
				u.undo(hist[len(hist)-1])
				marks, hist = marks[:len(marks)-1], hist[:len(hist)-1]
			}
			f := make(forest, n)
			f.reset()
			for _, d := range done {
				f[f.find(d[0])] = f.find(d[1])
			}
			for a := range int32(n) {
				for b := range int32(n) {
					if (u.find(a) == u.find(b)) != (f.find(a) == f.find(b)) {
						t.Fatalf("trial %d: %d and %d together %v, want %v", trial, a, b, u.find(a) == u.find(b), f.find(a) == f.find(b))
					}
				}
			}
		}
	}
}

// TestNetPairs pairs a boundary by the classes of the others: a class
// of no net is a group alone, and classes of opposite nets of one total
// are paired, whatever the sizes alone would pair.
func TestNetPairs(t *testing.T) {
	// Buffers 0 (5) and 1 (3) end, 2 (5) and 3 (3) start; 4 (2) lives
	// elsewhere, in the class the others give.
	size := []int64{5, 3, 5, 3, 2}
	for _, tc := range []struct {
		name    string
		classes [][]int32 // joined by the other boundaries
		want    [][2]uint64
	}{
		{"apart", nil, [][2]uint64{{0b01, 0b01}, {0b10, 0b10}}},
		{"crossed", [][]int32{{0, 3}, {1, 2}}, [][2]uint64{{0b11, 0b11}}},
		{"balanced", [][]int32{{0, 2}}, [][2]uint64{{0b01, 0b01}, {0b10, 0b10}}},
		{"all", [][]int32{{0, 1, 2, 3}}, [][2]uint64{{0b11, 0b11}}},
	} {
		l := &layout{in: &instance{size: size}, local: []int32{0, 1, 2, 3, 4}}
		bd := boundary{e: []int32{0, 1}, st: []int32{2, 3}}
		f := make(forest, len(size))
		f.reset()
		for _, c := range tc.classes {
			for _, k := range c[1:] {
				f[f.find(k)] = f.find(c[0])
			}
		}
		got := netPairs(l, bd, f.find, pairGroups)
		slices.SortFunc(got, func(a, b [2]uint64) int { return cmp.Compare(a[0], b[0]) })
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: netPairs = %b, want %b", tc.name, got, tc.want)
		}
	}
}
