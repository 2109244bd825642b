package exact_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"membench/strategies"
	"membench/strategies/exact"
	"membench/strategies/strategytest"
	"membench/workloads/synthetic"
)

// TestPairGroups checks the pairing of the groups of sizes ending and
// starting at a boundary.
func TestPairGroups(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b []int64
		want [][2]uint64
	}{
		{"one ends", []int64{10}, []int64{3, 7}, [][2]uint64{{1, 3}}},
		{"one starts", []int64{3, 7}, []int64{10}, [][2]uint64{{3, 1}}},
		// 3+7 = 10 and 5 = 5: two holes.
		{"two holes", []int64{3, 7, 5}, []int64{10, 5}, [][2]uint64{{3, 1}, {4, 2}}},
		// 4 and 4 could pair either way: taken together.
		{"same size twice", []int64{4, 4, 9}, []int64{4, 4, 9}, [][2]uint64{{3, 3}, {4, 4}}},
		// No group but the whole has a total of the other side.
		{"one hole", []int64{3, 8}, []int64{5, 6}, [][2]uint64{{3, 3}}},
	} {
		got := exact.PairGroups(tc.a, tc.b)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: PairGroups(%v, %v) = %v, want %v", tc.name, tc.a, tc.b, got, tc.want)
		}
	}
}

// TestEqualSubs checks the other groups repair pairs at a boundary:
// splits of (ma, mb) into two pairs of groups of equal totals, each
// written with the lowest buffer of ma, the smallest first.
func TestEqualSubs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		a, b   []int64
		ma, mb uint64
		want   [][2]uint64
	}{
		// 3+7 | 10 and 5 | 5: the only split; written with a[0].
		{"two holes", []int64{3, 7, 5}, []int64{10, 5}, 7, 3, [][2]uint64{{3, 1}}},
		// 2+4 | 6 or 3+3 (1+5 | the other), 2+1 | either 3: four
		// splits, each leaving a group of three buffers.
		{"several", []int64{2, 4, 1, 5}, []int64{6, 3, 3}, 15, 7,
			[][2]uint64{{3, 1}, {3, 6}, {5, 2}, {5, 4}}},
		// Only the whole: no split.
		{"none", []int64{3, 8}, []int64{5, 6}, 3, 3, nil},
		// 14 powers of two against their odd and even halves: the only
		// split has 7 buffers of 14 a side, more than the subsets of up
		// to 5 buffers listed by size (found by halves of every subset).
		{"large groups", []int64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192}, []int64{10922, 5461},
			1<<14 - 1, 3, [][2]uint64{{0b01010101010101, 2}}},
		// One buffer a side: nothing to split.
		{"single", []int64{4}, []int64{4}, 1, 1, nil},
	} {
		got := exact.EqualSubs(tc.a, tc.b, tc.ma, tc.mb)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: EqualSubs(%v, %v, %b, %b) = %v, want %v", tc.name, tc.a, tc.b, tc.ma, tc.mb, got, tc.want)
		}
	}
}

// TestBandsSmall packs thousands of small problems with no slack by
// bands: a packing found must be valid and within the capacity (bands
// prove nothing, so nothing is asked where they find none).
func TestBandsSmall(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	packed := 0
	for i := 0; i < 6000; {
		p, c := zeroSlackProblem(rng, 2+rng.IntN(9))
		if p == nil {
			continue
		}
		i++
		offs, ok, err := exact.BandPlan(p, c, 1<<20)
		if err != nil {
			t.Fatalf("problem %d %s: %v", i, strategytest.Describe(p), err)
		}
		if !ok {
			continue
		}
		packed++
		plan := &strategies.Plan{Offsets: offs, Footprint: strategies.Footprint(p.Buffers, offs)}
		if err := strategies.Validate(p, plan); err != nil || plan.Footprint != c {
			t.Fatalf("problem %d %s: footprint %d, want %d: %v", i, strategytest.Describe(p), plan.Footprint, c, err)
		}
	}
	if packed < 100 {
		t.Fatalf("bands packed only %d problems: want 100 or more", packed)
	}
	t.Logf("bands packed %d problems", packed)
}

// TestBandsTiling packs guillotine tilings and pinwheels of 120 buffers
// by bands and rectangles: all but one of the 40 tilings (there a band
// found does not lie apart, or a boundary pairs its sizes wrongly) and
// all 40 pinwheels (38 before rectangles were repaired: a blade living
// across a boundary where others meet was cut there).
func TestBandsTiling(t *testing.T) {
	for _, tc := range []struct {
		pinwheel bool
		want     int
	}{{false, 39}, {true, 40}} {
		if got := bandsPacked(t, tc.pinwheel); got != tc.want {
			t.Errorf("pinwheel %v: bands packed %d of 40, want %d", tc.pinwheel, got, tc.want)
		}
	}
}

func bandsPacked(t *testing.T, pinwheel bool) int {
	packed := 0
	for _, sizes := range synthetic.Distributions {
		for seed := range int64(8) {
			c := synthetic.DefaultTiling(120, seed)
			c.Sizes, c.Pinwheel = sizes, pinwheel
			p, _ := synthetic.Tiling(c)
			offs, ok, err := exact.BandPlan(p, c.Capacity, 100000)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				t.Logf("pinwheel %v sizes=%s seed %d: not packed by bands", pinwheel, sizes, seed)
				continue
			}
			packed++
			plan := &strategies.Plan{Offsets: offs, Footprint: strategies.Footprint(p.Buffers, offs)}
			if err := strategies.Validate(p, plan); err != nil || plan.Footprint != c.Capacity {
				t.Fatalf("sizes=%s seed %d: footprint %d: %v", sizes, seed, plan.Footprint, err)
			}
		}
	}
	return packed
}
