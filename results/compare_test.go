package results

import (
	"errors"
	"testing"

	"membench/workloads"
)

// TestCompareTies: a footprint ratio within 0.1% of 1 is a tie.
func TestCompareTies(t *testing.T) {
	for _, tc := range []struct {
		base, cand int64
		want       string
	}{
		{1000000, 1000000, "tie"},
		{1000000, 1001000, "tie"}, // ratio 1.001
		{1000000, 999000, "tie"},  // ratio 0.999
		{1000000, 1001001, "loss"},
		{1000000, 998999, "win"},
		{0, 0, "tie"},
		{0, 10, "loss"},
	} {
		recs := []Record{
			{Workload: "w", Subject: "a", Kind: KindStrategy, Status: StatusOK, Footprint: tc.base},
			{Workload: "w", Subject: "b", Kind: KindStrategy, Status: StatusOK, Footprint: tc.cand},
		}
		c, err := Compare(recs, "a", "b", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Rows[0].Outcome; got != tc.want {
			t.Errorf("baseline %d, candidate %d: %s, want %s", tc.base, tc.cand, got, tc.want)
		}
		if n := c.Wins + c.Ties + c.Losses; n != 1 {
			t.Errorf("baseline %d, candidate %d: %d outcomes counted", tc.base, tc.cand, n)
		}
	}
}

// TestCompareRefusesMixedKinds: a strategy's footprint and an allocator's
// measure different things.
func TestCompareRefusesMixedKinds(t *testing.T) {
	_, err := Compare(fixedRecords(), "naive", "bfc", nil)
	const want = `compare: baseline "naive" is a strategy but candidate "bfc" is an allocator; compare strategies with strategies and allocators with allocators`
	var ue *workloads.UsageError
	if err == nil || err.Error() != want || !errors.As(err, &ue) {
		t.Errorf("err = %v, want the usage error %q", err, want)
	}
}
