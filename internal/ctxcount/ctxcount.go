// Package ctxcount provides a context for tests of cancellation that
// counts how often the code under test looks at it and cancels itself at a
// chosen look. A test can then check what the code did after the
// cancellation (how many more times it looked before returning) instead of
// how many milliseconds it took, which depends on the machine's load.
package ctxcount

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Context is a context.Context that is cancelled at its k-th look. A look
// is a call to Err or Done; Err returns context.Canceled from the k-th
// look on, and the channel Done returns is closed at the k-th look. Code
// that keeps one Done channel and selects on it without calling Done or
// Err again never reaches the k-th look. Deadline and Value are those of
// context.Background. Safe for concurrent use.
type Context struct {
	mu       sync.Mutex
	cancelAt int // 0: never
	looks    int
	done     chan struct{}
}

// New returns a Context cancelled at look k (k = 1: already cancelled at
// the first look), or never if k <= 0.
func New(k int) *Context {
	return &Context{cancelAt: max(k, 0), done: make(chan struct{})}
}

// look counts one look and reports whether the context is cancelled.
func (c *Context) look() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.looks++
	if c.cancelAt == 0 || c.looks < c.cancelAt {
		return false
	}
	if c.looks == c.cancelAt {
		close(c.done)
	}
	return true
}

// Err counts a look and returns context.Canceled from the k-th look on.
func (c *Context) Err() error {
	if c.look() {
		return context.Canceled
	}
	return nil
}

// Done counts a look and returns a channel closed from the k-th look on.
func (c *Context) Done() <-chan struct{} {
	c.look()
	return c.done
}

// Deadline reports no deadline.
func (c *Context) Deadline() (time.Time, bool) { return time.Time{}, false }

// Value returns nil: the context carries no values.
func (c *Context) Value(any) any { return nil }

// Looks returns how many times the context has been looked at.
func (c *Context) Looks() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.looks
}

// Cancelled reports whether the cancelling look has happened.
func (c *Context) Cancelled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cancelAt > 0 && c.looks >= c.cancelAt
}

// After returns how many looks came after the cancelling one: 0 for code
// that returned as soon as it saw the cancellation (or never reached it).
func (c *Context) After() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancelAt == 0 || c.looks < c.cancelAt {
		return 0
	}
	return c.looks - c.cancelAt
}

// Stops checks that run, which does some work under the context it is
// given, stops when that context is cancelled, by counting looks. It runs
// run once with a context not cancelled (cancelled at look lookCap, to
// bound the work of a slow run) to count its looks, C, and requires at
// least two: one on entry and one during the work. Then it runs run with
// contexts cancelled at look 1, 2, C/2 and C, so that every phase of the
// work is reached, and requires each run to return context.Canceled
// within maxAfter further looks. An error of the first run, when its
// context was not cancelled, is returned wrapped.
func Stops(run func(*Context) error, lookCap, maxAfter int) error {
	ctx := New(lookCap)
	err := run(ctx)
	looks := ctx.Looks()
	switch {
	case !ctx.Cancelled() && err != nil:
		return err
	case !ctx.Cancelled() && looks < 2:
		return fmt.Errorf("looked at its context %s in all, so a cancellation during the work is never seen; want a look every so many steps", times(looks))
	}
	for _, k := range slices.Compact([]int{1, 2, max(2, looks/2), looks}) {
		ctx := New(k)
		err := run(ctx)
		switch {
		case !ctx.Cancelled():
			return fmt.Errorf("cancelled at look %d of %d: finished after %s, with error %v", k, looks, times(ctx.Looks()), err)
		case !errors.Is(err, context.Canceled):
			return fmt.Errorf("cancelled at look %d of %d: got error %v, looking at its context %s more, want context.Canceled", k, looks, err, times(ctx.After()))
		case ctx.After() > maxAfter:
			return fmt.Errorf("cancelled at look %d of %d: looked at its context %s more before returning, want at most %s", k, looks, times(ctx.After()), times(maxAfter))
		}
	}
	return nil
}

// times says n times in words.
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}
