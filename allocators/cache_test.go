package allocators

import (
	"context"
	"strings"
	"testing"

	"membench/workloads"
)

// TestReplayEmptyCache: an EmptyCache event gives cached segments back
// where the allocator's runtime has empty_cache, in the recorded replay
// and the timed ones (plain, streams, handles), and is a no-op elsewhere.
func TestReplayEmptyCache(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		spec, trace string
		final, peak int64
	}{
		{"torch-caching", "a,0,3145728\nf,0,\ne\n", 0, 20 * mib},
		{"torch-caching", "a,0,3145728\nf,0,\n", 20 * mib, 20 * mib},
		// Freed, emptied, allocated again: a new segment, never two at once.
		{"torch-caching", "a,0,3145728\na,1,3145728\nf,0,\nf,1,\ne\na,2,16777216\n", 16 * mib, 20 * mib},
		{"torch-caching", "a,0,3145728,1\nf,0,1\ns,1\ne\n", 0, 20 * mib},
		{"torch-caching", "a,0,3145728,1\nr,0,2\nf,0,1\ne\ns,2\n", 20 * mib, 20 * mib}, // the free waits for stream 2
		{"oneflow-bin", "a,0,3145728\nf,0,\ne\n", 0, 20 * mib},
		{"oneflow-bin", "a,0,3145728\nf,0,\n", 20 * mib, 20 * mib},
		{"first-fit", "a,0,3145728\nf,0,\ne\n", 3145728, 3145728},
	} {
		tr, err := workloads.ReadTrace(strings.NewReader(c.trace), "t")
		if err != nil {
			t.Fatal(err)
		}
		f, err := Lookup(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, verify := range []bool{false, true} {
			res, err := Replay(context.Background(), f.New(), tr, ReplayOptions{Repeat: 2, New: f.New, Verify: verify})
			if err != nil {
				t.Fatalf("%s on %q: %v", c.spec, c.trace, err)
			}
			if res.Final.Reserved != c.final || res.PeakReserved != c.peak {
				t.Errorf("%s on %q (verify %v): reserved %d at the end, peak %d; want %d, %d", c.spec, c.trace, verify, res.Final.Reserved, res.PeakReserved, c.final, c.peak)
			}
		}
	}
}
