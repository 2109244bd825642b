package allocators

import (
	"context"
	"testing"
)

// TestOneflowBinRules scripts each rule of vm::BinAllocator with exact
// offsets.
func TestOneflowBinRules(t *testing.T) {
	for _, c := range []struct {
		name, spec string
		steps      []scStep
		stats      Stats
	}{
		{"rounding to 512 in a 2 MiB block", "oneflow-bin", []scStep{
			scAlloc(1, 0, 512), scAlloc(513, 512, 1024), scAlloc(512, 1536, 512),
		}, Stats{InUse: 2048, PeakInUse: 2048, Reserved: 2 * scMiB, PeakReserved: 2 * scMiB, LargestFreeChunk: 2*scMiB - 2048, NumAllocs: 3}},
		{"alignment parameter", "oneflow-bin?alignment=256", []scStep{
			scAlloc(1, 0, 256), scAlloc(300, 256, 512),
		}, Stats{InUse: 768, PeakInUse: 768, Reserved: 2 * scMiB, PeakReserved: 2 * scMiB, LargestFreeChunk: 2*scMiB - 768, NumAllocs: 2}},
		// The rest of 1448 KiB is less than twice 1 MiB and than 128 MiB:
		// the whole piece is handed out.
		{"no split below twice the size", "oneflow-bin", []scStep{
			scAlloc(600*scKiB, 0, 600*scKiB), scAlloc(scMiB, 600*scKiB, 2*scMiB-600*scKiB),
		}, Stats{InUse: 2 * scMiB, PeakInUse: 2 * scMiB, Reserved: 2 * scMiB, PeakReserved: 2 * scMiB, NumAllocs: 2}},
		// 300 MiB is less than twice 160 MiB, but 140 MiB would remain.
		{"split when 128 MiB remain", "oneflow-bin", []scStep{
			scAlloc(300*scMiB, 0, 300*scMiB), scFree(0), scAlloc(160*scMiB, 0, 160*scMiB), scAlloc(140*scMiB, 160*scMiB, 140*scMiB),
		}, Stats{InUse: 300 * scMiB, PeakInUse: 300 * scMiB, Reserved: 300 * scMiB, PeakReserved: 300 * scMiB, NumAllocs: 3}},
		// 1 MiB takes a 20 MiB block and splits it; 10 MiB - 512 takes the
		// 19 MiB rest whole (less than twice the size); 10 MiB gets a block
		// of its own size, 11 MiB one of 12 MiB, whole.
		{"block sizes", "oneflow-bin", []scStep{
			scAlloc(scMiB, 0, scMiB), scAlloc(10*scMiB-512, scMiB, 19*scMiB),
			scAlloc(10*scMiB, 20*scMiB, 10*scMiB), scAlloc(11*scMiB, 30*scMiB, 12*scMiB),
		}, Stats{InUse: 42 * scMiB, PeakInUse: 42 * scMiB, Reserved: 42 * scMiB, PeakReserved: 42 * scMiB, NumAllocs: 4}},
		// Free pieces of 1 MiB at 1 MiB and at 3 MiB, of 2 MiB at 5 MiB:
		// 1 MiB goes to the lowest of the smallest, then the next, then
		// a request of 1.5 MiB takes the 2 MiB piece whole.
		{"best fit by size then address", "oneflow-bin", []scStep{
			scAlloc(scMiB, 0, scMiB), scAlloc(scMiB, scMiB, scMiB), scAlloc(scMiB, 2*scMiB, scMiB),
			scAlloc(scMiB, 3*scMiB, scMiB), scAlloc(scMiB, 4*scMiB, scMiB), scAlloc(2*scMiB, 5*scMiB, 2*scMiB),
			scAlloc(scMiB, 7*scMiB, scMiB),
			scFree(3), scFree(1), scFree(5),
			scAlloc(scMiB, scMiB, scMiB), scAlloc(scMiB, 3*scMiB, scMiB), scAlloc(1536*scKiB, 5*scMiB, 2*scMiB),
		}, Stats{InUse: 8 * scMiB, PeakInUse: 8 * scMiB, Reserved: 20 * scMiB, PeakReserved: 20 * scMiB, LargestFreeChunk: 12 * scMiB, NumAllocs: 10}},
		// Freeing the middle piece after its neighbours merges all three
		// with the rest of the block.
		{"neighbours merge", "oneflow-bin", []scStep{
			scAlloc(512*scKiB, 0, 512*scKiB), scAlloc(256*scKiB, 512*scKiB, 256*scKiB), scAlloc(256*scKiB, 768*scKiB, 256*scKiB),
			scFree(0), scFree(2), scFree(1),
			scAlloc(2*scMiB, 0, 2*scMiB),
		}, Stats{InUse: 2 * scMiB, PeakInUse: 2 * scMiB, Reserved: 2 * scMiB, PeakReserved: 2 * scMiB, NumAllocs: 4}},
		// 3 MiB needs a 20 MiB block, which the limit refuses while the
		// free 2 MiB block is kept.
		{"no shrink by default", "oneflow-bin?memory_limit=21M", []scStep{
			scAlloc(512*scKiB, 0, 512*scKiB), scFree(0), scOOM(3 * scMiB),
		}, Stats{PeakInUse: 512 * scKiB, Reserved: 2 * scMiB, PeakReserved: 2 * scMiB, LargestFreeChunk: 2 * scMiB, NumAllocs: 1, OOMs: 1}},
		{"shrink on OOM", "oneflow-bin?memory_limit=21M&shrink_on_oom=true", []scStep{
			scAlloc(512*scKiB, 0, 512*scKiB), scFree(0), scAlloc(3*scMiB, 0, 3*scMiB),
		}, Stats{InUse: 3 * scMiB, PeakInUse: 3 * scMiB, Reserved: 20 * scMiB, PeakReserved: 20 * scMiB, LargestFreeChunk: 17 * scMiB, NumAllocs: 2}},
		// A block still partly used is kept: the limit stands.
		{"shrink keeps used blocks", "oneflow-bin?memory_limit=21M&shrink_on_oom=true", []scStep{
			scAlloc(512*scKiB, 0, 512*scKiB), scOOM(3 * scMiB),
		}, Stats{InUse: 512 * scKiB, PeakInUse: 512 * scKiB, Reserved: 2 * scMiB, PeakReserved: 2 * scMiB, LargestFreeChunk: 1536 * scKiB, NumAllocs: 1, OOMs: 1}},
		// A request too large for any device is refused; with
		// shrink_on_oom the refusal gives the free block back first.
		{"huge request, no shrink", "oneflow-bin?memory_limit=21M", []scStep{
			scAlloc(512*scKiB, 0, 512*scKiB), scFree(0), scOOM(1<<52 + 1),
		}, Stats{PeakInUse: 512 * scKiB, Reserved: 2 * scMiB, PeakReserved: 2 * scMiB, LargestFreeChunk: 2 * scMiB, NumAllocs: 1, OOMs: 1}},
		{"huge request shrinks on OOM", "oneflow-bin?memory_limit=21M&shrink_on_oom=true", []scStep{
			scAlloc(512*scKiB, 0, 512*scKiB), scFree(0), scOOM(1<<52 + 1),
		}, Stats{PeakInUse: 512 * scKiB, PeakReserved: 2 * scMiB, NumAllocs: 1, OOMs: 1}},
		// With alignment 64, bin 0 holds pieces under 512 bytes, by size
		// then address: 64 bytes take the free 64-byte piece at 192, not
		// the 128-byte one at 0.
		{"bin 0 below 512 bytes", "oneflow-bin?alignment=64", []scStep{
			scAlloc(100, 0, 128), scAlloc(64, 128, 64), scAlloc(64, 192, 64), scAlloc(64, 256, 64),
			scFree(0), scFree(2), scAlloc(64, 192, 64), scAlloc(64, 0, 64),
		}, Stats{InUse: 256, PeakInUse: 320, Reserved: 2 * scMiB, PeakReserved: 2 * scMiB, LargestFreeChunk: 2*scMiB - 320, NumAllocs: 6}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := scBuild(t, c.spec)
			scPlay(t, a, c.steps)
			scStats(t, a, c.stats)
		})
	}
}

func TestOneflowBinBadAlignment(t *testing.T) {
	for _, spec := range []string{"oneflow-bin?alignment=1024", "oneflow-bin?alignment=384", "oneflow-bin?alignment=0"} {
		if _, err := Lookup(spec); err == nil {
			t.Errorf("Lookup(%q) accepted", spec)
		}
	}
	_, err := Lookup("oneflow-bin?alignment=1024")
	if want := "oneflow-bin: alignment=1024: want a power of two from 1 to 512"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

// TestOneflowBinStreams: each stream has its own blocks and reuses only
// its own pieces; a free of a tensor another stream used reaches the
// allocator after both streams' syncs.
func TestOneflowBinStreams(t *testing.T) {
	const trace = `a,1,512,0
a,2,512,1
f,2,1
a,3,512,0
a,4,512,1
r,4,0
f,4,1
a,5,512,1
s,1
a,6,512,1
s,0
a,7,512,1
`
	res, err := Replay(context.Background(), scBuild(t, "oneflow-bin"), readTraceString(t, trace), ReplayOptions{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	mb := 2 * scMiB
	// 2's free completes at stream 1's sync (event 8), 4's, which stream
	// 0 used too, at stream 0's (event 10); stream 0's block is never
	// used by stream 1.
	want := []int64{0, mb, 512, mb + 512, mb + 1024, mb, mb + 512}
	if got := offsets(res); !equalInt64(got, want) {
		t.Errorf("offsets %v, want %v", got, want)
	}
	if res.PeakReserved != 2*mb {
		t.Errorf("peak reserved %d, want %d", res.PeakReserved, 2*mb)
	}
}

func equalInt64(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
