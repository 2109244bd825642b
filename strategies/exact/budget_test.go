package exact

import (
	"context"
	"testing"
	"time"
)

// TestAdaptSkip: the nodes between reads of the clock shrink by the power
// of two of the milliseconds since the last read, and grow one step a
// read when reads come faster than a quarter of a millisecond.
func TestAdaptSkip(t *testing.T) {
	tests := []struct {
		skip uint8
		d    time.Duration
		want uint8
	}{
		{0, 10 * time.Millisecond, 3},
		{2, 2 * time.Millisecond, 3},
		{2, 1999 * time.Microsecond, 2},
		{0, 15 * time.Millisecond, 3},
		{0, 16 * time.Millisecond, 4},
		{1, 3 * time.Second, 8},
		{4, 100 * time.Microsecond, 3},
		{0, 100 * time.Microsecond, 0},
		{4, 250 * time.Microsecond, 4},
		{8, 0, 7},
	}
	for _, tc := range tests {
		if got := adaptSkip(tc.skip, tc.d); got != tc.want {
			t.Errorf("adaptSkip(%d, %v) = %d, want %d", tc.skip, tc.d, got, tc.want)
		}
	}
	for skip, every := range []int64{255, 127, 63, 31, 15, 7, 3, 1, 0} {
		if got := (&budget{skip: uint8(skip)}).every(); got != every {
			t.Errorf("skip %d: every %d, want %d", skip, got, every)
		}
	}
}

// TestBudgetDeadline: a passed deadline ends the budget, with the reason.
func TestBudgetDeadline(t *testing.T) {
	b := &budget{ctx: context.Background(), nodes: -1, deadline: time.Now().Add(-time.Second), skip: 4}
	if !b.spent() || !b.timedOut || b.err != nil {
		t.Errorf("spent after the deadline: timedOut %v, err %v", b.timedOut, b.err)
	}
}
