package allocators

import (
	"context"
	"fmt"
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
		for verify, res := range replayTimedAndVerified(t, c.spec, tr) {
			if res.Final.Reserved != c.final || res.PeakReserved != c.peak {
				t.Errorf("%s on %q (verify %v): reserved %d at the end, peak %d; want %d, %d", c.spec, c.trace, verify, res.Final.Reserved, res.PeakReserved, c.final, c.peak)
			}
		}
	}
}

// TestReplayRecordedCache: a snapshot recorded mid-run replays from the
// cache it started from (torch-caching starts with its segments reserved
// and blocks allocated), so its peak reserved and segment allocations and
// frees are the recorded ones; an empty cache (the trace's allocations
// served by fresh segments) fits the 12 MiB request in the free space the
// recording did not have. Allocators that take no cache replay the
// allocations.
func TestReplayRecordedCache(t *testing.T) {
	const mib = 1 << 20
	w, err := workloads.Load("../workloads/testdata/pytorch/mid_run.pickle")
	if err != nil {
		t.Fatal(err)
	}
	tr := w.Trace
	for _, c := range []struct {
		spec   string
		seeded bool
		peak   int64
		segs   []workloads.SegmentEvent
	}{
		{"torch-caching", true, 42 * mib, []workloads.SegmentEvent{{Free: true, Size: 20 * mib, Event: 3}, {Size: 12 * mib, Event: 5}}},
		// One 20 MiB page for the large blocks (the 12 MiB one after the
		// 4 MiB one), one 2 MiB page for the small ones.
		{"torch-caching?alloc_conf=expandable_segments:True", false, 22 * mib, nil},
		// 3 MiB + 4 MiB + 1 KiB, then 12 MiB at the end; the 600000 B
		// block goes where the 3 MiB one was.
		{"first-fit", false, 3*mib + 4*mib + 1024 + 12*mib, nil},
	} {
		for verify, res := range replayTimedAndVerified(t, c.spec, tr) {
			if res.Seeded != c.seeded || res.PeakReserved != c.peak {
				t.Errorf("%s (verify %v): seeded %v, peak reserved %d; want %v, %d", c.spec, verify, res.Seeded, res.PeakReserved, c.seeded, c.peak)
			}
			if c.segs != nil && fmt.Sprint(res.Segments) != fmt.Sprint(c.segs) {
				t.Errorf("%s: segments %v, want %v", c.spec, res.Segments, c.segs)
			}
		}
	}
}

// replayTimedAndVerified replays tr with spec twice, with timed replays
// (verify false) and through a Verifier (true).
func replayTimedAndVerified(t *testing.T, spec string, tr *workloads.Trace) map[bool]*ReplayResult {
	t.Helper()
	f, err := Lookup(spec)
	if err != nil {
		t.Fatal(err)
	}
	out := map[bool]*ReplayResult{}
	for _, verify := range []bool{false, true} {
		res, err := Replay(context.Background(), f.New(), tr, ReplayOptions{Repeat: 2, New: f.New, Verify: verify})
		if err != nil {
			t.Fatalf("%s (verify %v): %v", spec, verify, err)
		}
		out[verify] = res
	}
	return out
}

// TestReplayRecordedCacheStreams: seeding holds in a trace with streams
// and sync points (the timed loop passes handles there too), and a cache
// that memory_limit cannot hold is an error.
func TestReplayRecordedCacheStreams(t *testing.T) {
	const mib = 1 << 20
	tr, err := workloads.ReadTrace(strings.NewReader("a,0,1000\na,1,3145728,1\nf,0,\ns,0\nf,1,1\ns,1\na,2,1000\n"), "t")
	if err != nil {
		t.Fatal(err)
	}
	// Block 0 sits at the end of a small segment; freed, it merges with
	// the free space before it, and the next 1000 B go at the segment's
	// start.
	tr.Cache = []workloads.CacheSegment{{Size: 2 * mib, Small: true, Blocks: []workloads.CacheBlock{{Offset: 2*mib - 1024, Size: 1024, ID: 0}}}}
	for verify, res := range replayTimedAndVerified(t, "torch-caching", tr) {
		if !res.Seeded || res.PeakReserved != 22*mib || res.Allocs[0].Offset != 2*mib-1024 || res.Allocs[2].Offset != res.Allocs[0].Offset-(2*mib-1024) {
			t.Errorf("verify %v: seeded %v, peak reserved %d, allocs %+v", verify, res.Seeded, res.PeakReserved, res.Allocs)
		}
	}
	f, err := Lookup("torch-caching?memory_limit=1M")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Replay(context.Background(), f.New(), tr, ReplayOptions{})
	const want = "replay: torch-caching: recorded cache, segment 0: 2097152 bytes past memory_limit 1048576: out of memory"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}
