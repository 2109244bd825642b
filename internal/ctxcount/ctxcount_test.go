package ctxcount

import (
	"context"
	"errors"
	"testing"
)

// TestContext: Err and Done are looks; the k-th cancels.
func TestContext(t *testing.T) {
	c := New(3)
	if c.Err() != nil || c.Cancelled() {
		t.Fatal("cancelled at look 1, want look 3")
	}
	select {
	case <-c.Done():
		t.Fatal("Done closed at look 2")
	default:
	}
	if !errors.Is(c.Err(), context.Canceled) || !c.Cancelled() {
		t.Fatal("not cancelled at look 3")
	}
	<-c.Done()
	if c.Looks() != 4 || c.After() != 1 {
		t.Errorf("looks %d after %d, want 4 and 1", c.Looks(), c.After())
	}
	never := New(0)
	for range 10 {
		never.Err()
	}
	if never.Cancelled() || never.After() != 0 || never.Looks() != 10 {
		t.Errorf("New(0): cancelled %v after %d looks %d, want never, 0, 10", never.Cancelled(), never.After(), never.Looks())
	}
}

// work looks at ctx once on entry and once per step of n, and misbehaves
// as told.
func work(n int, skipEntry, ignore, late bool) func(*Context) error {
	return func(ctx *Context) error {
		if !skipEntry {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		var seen error
		for i := range n {
			err := ctx.Err()
			switch {
			case ignore && i >= n/2:
			case late:
				seen = errors.Join(seen, err)
			case err != nil:
				return err
			}
		}
		return seen
	}
}

func TestStops(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(*Context) error
		want string
	}{
		{"stops", work(100, false, false, false), ""},
		{"slow, capped", work(1000, false, false, false), ""},
		{"never looks", work(0, true, false, false), "looked at its context 0 times in all, so a cancellation during the work is never seen; want a look every so many steps"},
		{"looks on entry only", work(0, false, false, false), "looked at its context once in all, so a cancellation during the work is never seen; want a look every so many steps"},
		{"ignores the second half", work(100, false, true, false), "cancelled at look 101 of 101: got error <nil>, looking at its context 0 times more, want context.Canceled"},
		{"stops at the end", work(100, false, false, true), "cancelled at look 2 of 101: looked at its context 99 times more before returning, want at most 4 times"},
		{"fails", func(*Context) error { return errors.New("bad input") }, "bad input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Stops(tc.run, 256, 4)
			if got := errString(err); got != tc.want {
				t.Errorf("Stops = %q, want %q", got, tc.want)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
