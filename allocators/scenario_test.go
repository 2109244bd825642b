package allocators

import (
	"errors"
	"testing"
)

// scBuild makes an allocator from spec or fails the test.
func scBuild(t testing.TB, spec string) Allocator {
	t.Helper()
	f, err := Lookup(spec)
	if err != nil {
		t.Fatalf("Lookup(%q): %v", spec, err)
	}
	return f.New()
}

// scStep is one call of a scripted scenario: an allocation of Size bytes
// (Free < 0) expecting Want, or the free of the block allocated at step
// Free.
type scStep struct {
	Size int64
	Want Block // Offset -1: an OOM is expected
	Free int
}

func scAlloc(size, off, chunk int64) scStep {
	return scStep{Size: size, Want: Block{off, chunk}, Free: -1}
}
func scOOM(size int64) scStep { return scStep{Size: size, Want: Block{Offset: -1}, Free: -1} }
func scFree(i int) scStep     { return scStep{Free: i} }

// scPlay runs steps on a and checks every result.
func scPlay(t *testing.T, a Allocator, steps []scStep) {
	t.Helper()
	got := make([]Block, len(steps))
	for i, s := range steps {
		if s.Free >= 0 {
			if err := a.Free(got[s.Free].Offset); err != nil {
				t.Fatalf("step %d: Free(%d): %v", i, got[s.Free].Offset, err)
			}
			continue
		}
		b, err := a.Alloc(s.Size)
		if s.Want.Offset < 0 {
			if !errors.Is(err, ErrOOM) {
				t.Fatalf("step %d: Alloc(%d) = %+v, %v; want an OOM", i, s.Size, b, err)
			}
			continue
		}
		if err != nil || b != s.Want {
			t.Fatalf("step %d: Alloc(%d) = %+v, %v; want %+v", i, s.Size, b, err, s.Want)
		}
		got[i] = b
	}
}

// scStats compares a's stats with want.
func scStats(t *testing.T, a Allocator, want Stats) {
	t.Helper()
	if got := a.Stats(); got != want {
		t.Errorf("Stats() =\n %+v, want\n %+v", got, want)
	}
}

const (
	scKiB = int64(1) << 10
	scMiB = int64(1) << 20
)
