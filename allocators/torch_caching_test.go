package allocators

import (
	"strings"
	"testing"
)

func TestTorchRoundSize(t *testing.T) {
	tests := []struct {
		divisions, size, want int64
	}{
		{0, 1, 512},
		{0, 512, 512},
		{0, 513, 1024},
		{0, scMiB + 1, scMiB + 512},
		{4, 2048, 2048}, // not above 512*4: plain 512 rounding
		{4, 2049, 2560},
		{4, 5000, 5120},
		{4, 4096, 4096},
		{4, scMiB + 1, scMiB + scMiB/4},
		{4, 3 * scMiB, 3 * scMiB},
		{8, 4000, 4096},
		{8, 5000, 5120},
		{2, 3*scMiB + 1, 4 * scMiB},
	}
	for _, tt := range tests {
		a := &torchCaching{}
		for i := range a.conf.divisions {
			a.conf.divisions[i] = tt.divisions
		}
		if got := a.roundSize(tt.size); got != tt.want {
			t.Errorf("divisions %d: roundSize(%d) = %d, want %d", tt.divisions, tt.size, got, tt.want)
		}
	}
}

func TestTorchSegmentSize(t *testing.T) {
	tests := []struct{ size, want int64 }{
		{512, 2 * scMiB},
		{scMiB, 2 * scMiB},
		{scMiB + 512, 20 * scMiB},
		{10*scMiB - 512, 20 * scMiB},
		{10 * scMiB, 10 * scMiB},
		{10*scMiB + 512, 12 * scMiB},
	}
	for _, tt := range tests {
		if got := segmentSize(tt.size); got != tt.want {
			t.Errorf("segmentSize(%d) = %d, want %d", tt.size, got, tt.want)
		}
	}
}

// TestTorchPoolsSplitAndCoalesce walks the pool, segment, split and
// coalescing rules.
func TestTorchPoolsSplitAndCoalesce(t *testing.T) {
	a := scBuild(t, "torch-caching")
	scPlay(t, a, []scStep{
		scAlloc(1, 0, 512),                        // 0: small pool, 2 MiB segment at 0, split
		scAlloc(scMiB, 512, scMiB),                // 1: 1 MiB is still small: the rest of segment 0
		scAlloc(scMiB+1, 2*scMiB, scMiB+512),      // 2: large pool, 20 MiB segment at 2 MiB
		scAlloc(10*scMiB, 3*scMiB+512, 10*scMiB),  // 3: best fit in the cached rest of that segment
		scAlloc(11*scMiB-100, 22*scMiB, 12*scMiB), // 4: 12 MiB segment; a 1 MiB rest is not split off
	})
	scStats(t, a, Stats{InUse: 24*scMiB + 1024, PeakInUse: 24*scMiB + 1024, Reserved: 34 * scMiB, PeakReserved: 34 * scMiB,
		LargestFreeChunk: 9*scMiB - 512, NumAllocs: 5})

	a = scBuild(t, "torch-caching")
	scPlay(t, a, []scStep{
		scAlloc(scMiB, 0, scMiB),
		scAlloc(scMiB, scMiB, scMiB), // exact fit: no split
		scAlloc(scMiB+1, 2*scMiB, scMiB+512),
		scAlloc(scMiB+1, 3*scMiB+512, scMiB+512),
		scAlloc(scMiB+1, 4*scMiB+1024, scMiB+512),
		scFree(3), // cached between two live blocks
		scFree(2), // merges with its free right neighbour
		scFree(4), // merges both ways, with the rest of the segment
		scFree(0),
		scFree(1), // the small segment is whole again
	})
	scStats(t, a, Stats{InUse: 0, PeakInUse: 5*scMiB + 1536, Reserved: 22 * scMiB, PeakReserved: 22 * scMiB,
		LargestFreeChunk: 20 * scMiB, NumAllocs: 5})
	scPlay(t, a, []scStep{scAlloc(20*scMiB, 2*scMiB, 20*scMiB)}) // the whole coalesced segment
}

func TestTorchLargeSplitRule(t *testing.T) {
	scPlay(t, scBuild(t, "torch-caching"), []scStep{
		scAlloc(9*scMiB, 0, 9*scMiB),            // 20 MiB segment, 11 MiB rest split off
		scAlloc(10*scMiB, 9*scMiB, 11*scMiB),    // a 1 MiB rest is not > 1 MiB: the whole block
		scAlloc(512*scKiB, 20*scMiB, 512*scKiB), // small pool
		scFree(1),
		scAlloc(9*scMiB+512, 9*scMiB, 9*scMiB+512),    // a rest of 2 MiB - 512 is split off
		scAlloc(scMiB+512, 18*scMiB+512, 2*scMiB-512), // a 1 MiB - 1 KiB rest stays
	})
}

func TestTorchBestFitTiesByAddress(t *testing.T) {
	scPlay(t, scBuild(t, "torch-caching"), []scStep{
		scAlloc(scMiB, 0, scMiB),
		scAlloc(scMiB, scMiB, scMiB),
		scAlloc(scMiB, 2*scMiB, scMiB),
		scAlloc(scMiB, 3*scMiB, scMiB),
		scFree(2),
		scFree(0),
		scAlloc(256*scKiB, 0, 256*scKiB),         // two cached 1 MiB blocks: the lower address wins
		scAlloc(768*scKiB, 256*scKiB, 768*scKiB), // the 768 KiB rest fits better than 1 MiB
		scAlloc(scMiB, 2*scMiB, scMiB),
	})
}

// TestTorchOOMReleasesCache checks that a refused segment frees the cached
// segments and retries, and that an OOM that remains is reported.
func TestTorchOOMReleasesCache(t *testing.T) {
	a := scBuild(t, "torch-caching?memory_limit=40M")
	scPlay(t, a, []scStep{
		scAlloc(15*scMiB, 0, 16*scMiB),
		scFree(0),
		scAlloc(30*scMiB, 0, 30*scMiB), // 16 + 30 > 40: the cached segment goes, the retry fits
		scOOM(12 * scMiB),
		scOOM(9 * scMiB), // a 20 MiB segment
		scAlloc(1, 30*scMiB, 512),
	})
	scStats(t, a, Stats{InUse: 30*scMiB + 512, PeakInUse: 30*scMiB + 512, Reserved: 32 * scMiB, PeakReserved: 32 * scMiB,
		LargestFreeChunk: 2*scMiB - 512, NumAllocs: 3, OOMs: 2})
}

func TestTorchMaxSplitSize(t *testing.T) {
	a := scBuild(t, "torch-caching?max_split_size=24M")
	scPlay(t, a, []scStep{
		scAlloc(30*scMiB, 0, 30*scMiB),
		scFree(0),
		scAlloc(5*scMiB, 30*scMiB, 5*scMiB),   // the cached 30 MiB block is oversize: a new segment
		scAlloc(28*scMiB, 0, 30*scMiB),        // oversize request, block within 20 MiB: taken whole
		scAlloc(25*scMiB, 50*scMiB, 26*scMiB), // nothing cached fits
		scFree(3),
		scAlloc(4*scMiB, 35*scMiB, 4*scMiB), // the 15 MiB rest, not the oversize block
	})

	a = scBuild(t, "torch-caching?max_split_size=24M&memory_limit=100M")
	scPlay(t, a, []scStep{
		scAlloc(50*scMiB, 0, 50*scMiB),
		scFree(0),
		scAlloc(25*scMiB, 50*scMiB, 26*scMiB), // 50 >= 25 + 20: too wasteful, a new segment
		scAlloc(30*scMiB, 0, 30*scMiB),        // 76 + 30 > 100: the oversize segment is given back
	})
	scStats(t, a, Stats{InUse: 56 * scMiB, PeakInUse: 56 * scMiB, Reserved: 56 * scMiB, PeakReserved: 76 * scMiB, NumAllocs: 3})
}

// TestTorchGarbageCollection checks that old cached segments go once
// reserved passes the threshold, the ones older than average first.
func TestTorchGarbageCollection(t *testing.T) {
	steps := func(e scStep) []scStep {
		return []scStep{
			scAlloc(24*scMiB, 0, 24*scMiB),
			scFree(0),
			scAlloc(30*scMiB, 24*scMiB, 30*scMiB),
			scFree(2),
			scAlloc(40*scMiB, 54*scMiB, 40*scMiB),
			scAlloc(44*scMiB, 94*scMiB, 44*scMiB),
			scFree(4),
			scFree(5),
			e,
		}
	}
	// Reserved 138 MiB > 100 MiB: the 24 and 30 MiB segments, idle for 4
	// and 3 lookups against an average of 2.25, are given back.
	a := scBuild(t, "torch-caching?memory_limit=200M&garbage_collection_threshold=0.5")
	scPlay(t, a, steps(scAlloc(50*scMiB, 0, 50*scMiB)))
	scStats(t, a, Stats{InUse: 50 * scMiB, PeakInUse: 84 * scMiB, Reserved: 134 * scMiB, PeakReserved: 138 * scMiB,
		LargestFreeChunk: 44 * scMiB, NumAllocs: 5})

	// Without the threshold nothing is given back.
	a = scBuild(t, "torch-caching?memory_limit=200M")
	scPlay(t, a, steps(scAlloc(50*scMiB, 138*scMiB, 50*scMiB)))
	scStats(t, a, Stats{InUse: 50 * scMiB, PeakInUse: 84 * scMiB, Reserved: 188 * scMiB, PeakReserved: 188 * scMiB,
		LargestFreeChunk: 44 * scMiB, NumAllocs: 5})
}

func TestTorchBadParams(t *testing.T) {
	tests := []struct{ spec, want string }{
		{"torch-caching?max_split_size=20M", "want more than 20M"},
		{"torch-caching?roundup_power2_divisions=3", "want 0 or a power of two"},
		{"torch-caching?garbage_collection_threshold=1", "want 0 < t < 1"},
		{"torch-caching?garbage_collection_threshold=x", "want a finite number"},
		{"torch-caching?memory_limit=lots", "want a byte size"},
		{"torch-caching?max_split=1G", `unknown parameter "max_split"`},
	}
	for _, tt := range tests {
		_, err := Lookup(tt.spec)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Lookup(%q) = %v, want an error containing %q", tt.spec, err, tt.want)
		}
	}
}
