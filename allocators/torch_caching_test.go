package allocators

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"membench/workloads"
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

	// The same through alloc_conf.
	a = scBuild(t, "torch-caching?memory_limit=200M&alloc_conf=garbage_collection_threshold:0.5")
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

// TestTorchAllocConf checks that alloc_conf reads PYTORCH_CUDA_ALLOC_CONF as
// CUDAAllocatorConfig::parseArgs does at pytorch 001074d2, including its
// per-range roundup_power2_divisions and C++'s stoi/stod prefixes.
func TestTorchAllocConf(t *testing.T) {
	const mib = scMiB
	fill := func(pairs ...int64) (d [tcIntervals]int64) {
		for i := 0; i < len(pairs); i += 3 {
			for k := pairs[i]; k <= pairs[i+1]; k++ {
				d[k] = pairs[i+2]
			}
		}
		return d
	}
	def := defaultTCConfig()
	divs := func(d [tcIntervals]int64) tcConfig { c := def; c.divisions = d; return c }
	tests := []struct {
		conf string
		want tcConfig
	}{
		{"expandable_segments:True,max_split_size_mb:128", tcConfig{maxSplit: 128 * mib, expandable: true}},
		{" max_split_size_mb : 21 , garbage_collection_threshold:0.5", tcConfig{maxSplit: 21 * mib, gcThreshold: 0.5}},
		// Below the first boundary its value holds; > starts at the last
		// boundary's range (10, 1 GiB) and overrides its 4.
		{"roundup_power2_divisions:[256:1,512:2,1024:4,>:8]", divs(fill(0, 8, 1, 9, 9, 2, 10, 15, 8))},
		// Ranges between boundaries keep 0 (1024 MiB here); > from 2048 MiB's.
		{"roundup_power2_divisions:[128:8,256:16,512:1,2048:8,>:2]", divs(fill(0, 7, 8, 8, 8, 16, 9, 9, 1, 11, 15, 2))},
		// > alone starts at range 0; a boundary after > is still the first.
		{"roundup_power2_divisions:[>:8]", divs(fill(0, 15, 8))},
		{"roundup_power2_divisions:[>:8,256:2]", divs(fill(0, 8, 2, 9, 15, 8))},
		// Boundaries past 32 GiB name the last range; 1 MiB the first.
		{"roundup_power2_divisions:[1:2,65536:4]", divs(fill(0, 0, 2, 15, 15, 4))},
		{"roundup_power2_divisions:[256:0]", def},
		{"roundup_power2_divisions:4", divs(fill(0, 15, 4))},
		{"roundup_power2_divisions:1", divs(fill(0, 15, 1))},
		// Upstream asks for no closing bracket.
		{"roundup_power2_divisions:[256:2,", divs(fill(0, 8, 2))},
		{"roundup_power2_divisions:[]", def},
		// stoi and stod read a numeric prefix; a negative max_split_size_mb
		// wraps to a size_t past any block: no limit.
		{"max_split_size_mb:100MB", tcConfig{maxSplit: 100 * mib}},
		{"max_split_size_mb:-1", def},
		{"garbage_collection_threshold:.25x", tcConfig{maxSplit: def.maxSplit, gcThreshold: 0.25}},
		{"garbage_collection_threshold:\t5e-1", tcConfig{maxSplit: def.maxSplit, gcThreshold: 0.5}},
		{"backend:native,release_lock_on_cudamalloc:True,pinned_num_register_threads:128,pinned_use_cuda_host_register:False," +
			"release_lock_on_hipmalloc:False,pinned_use_hip_host_register:True", def},
		{"expandable_segments:False,", def},
		{"", def},
	}
	for _, tt := range tests {
		got, err := parseAllocConf(tt.conf)
		if err != nil || got != tt.want {
			t.Errorf("parseAllocConf(%q) =\n %+v, %v; want\n %+v", tt.conf, got, err, tt.want)
		}
	}
}

// TestTorchAllocConfErrors checks the options 001074d2 refuses, with its
// messages (ours where it would throw a C++ standard exception).
func TestTorchAllocConfErrors(t *testing.T) {
	tests := []struct{ conf, want string }{
		{"max_split_size_mb:20", "CachingAllocator option max_split_size_mb too small, must be > 20"},
		// Later PyTorch's keys.
		{"max_split_size_mb:21,max_non_split_rounding_mb:100", "Unrecognized CachingAllocator option: max_non_split_rounding_mb"},
		{"pinned_use_background_threads:True", "Unrecognized CachingAllocator option: pinned_use_background_threads"},
		{"garbage_collection_threshold:1.0", "garbage_collect_threshold too big, set it 0.0~1.0"},
		{"garbage_collection_threshold:0", "garbage_collect_threshold too small, set it 0.0~1.0"},
		{"garbage_collection_threshold:nan", "garbage_collect_threshold too small, set it 0.0~1.0"},
		{"garbage_collection_threshold:half", `garbage_collection_threshold: expected a number, got "half"`},
		{"garbage_collection_threshold:1e-400", `garbage_collection_threshold: "1e-400" is out of the range of a double`},
		{"garbage_collection_threshold:", "Error, expecting garbage_collection_threshold value"},
		{"expandable_segments:true", "Expected a single True/False argument for expandable_segments"},
		{"expandable_segments:", "Expected a single True/False argument for expandable_segments"},
		{"expandable_segments:\tTrue", "Expected a single True/False argument for expandable_segments"},
		{"release_lock_on_hipmalloc:1", "Expected a single True/False argument for release_lock_on_cudamalloc"},
		{"pinned_use_cuda_host_register:yes", "Expected a single True/False argument for pinned_use_cuda_host_register"},
		{"pinned_use_hip_host_register:", "Error, expecting pinned_use_cuda_host_register value"},
		{"pinned_num_register_threads:3", "Number of register threads has to be power of 2"},
		{"pinned_num_register_threads:256", "Number of register threads should be less than or equal to 128"},
		{"roundup_power2_divisions:[256:3]", "For roundups, the divisons has to be power of 2 or 0 to disable roundup"},
		{"roundup_power2_divisions:[256:-2]", "For roundups, the divisons has to be power of 2 or 0 to disable roundup"},
		{"roundup_power2_divisions:[300:2]", "For roundups, the intervals have to be power of 2"},
		{"roundup_power2_divisions:[0:2]", "For roundups, the intervals have to be power of 2"},
		{"roundup_power2_divisions:3", "For roundups, the divisons has to be power of 2"},
		{"roundup_power2_divisions:0", "For roundups, the divisons has to be power of 2"},
		{"roundup_power2_divisions:[256:2,512:4", "Error parsing CachingAllocator settings, expected ,"},
		{"roundup_power2_divisions:[256:", "Error parsing roundup_power2_divisions value"},
		{"roundup_power2_divisions:[256,2]", "Error parsing CachingAllocator settings, expected :"},
		{"roundup_power2_divisions:", "Error, expecting roundup_power2_divisions value"},
		{"roundup_power2_divisions:[x:2]", `roundup_power2_divisions: expected an integer, got "x"`},
		{"max_split_size_mb:abc", `max_split_size_mb: expected an integer, got "abc"`},
		{"max_split_size_mb:3000000000", `max_split_size_mb: "3000000000" is out of the range of an int`},
		{"max_split_size_mb", "Error parsing CachingAllocator settings, expected :"},
		{"max_split_size_mb:", "Error, expecting max_split_size_mb value"},
		{"max_split_size_mb:128;expandable_segments:True", "Error parsing CachingAllocator settings, expected ,"},
		{"max_split_size_mb:128 garbage_collection_threshold:0.5", "Error parsing CachingAllocator settings, expected ,"},
		{"max_split_size_mb:128,:", "Unrecognized CachingAllocator option: :"},
		{"max_split_size_mb=128", "Unrecognized CachingAllocator option: max_split_size_mb=128"},
		{"backend:cuda", "Unknown allocator backend, options are native and cudaMallocAsync"},
		{"backend:", "Error parsing backend value"},
		{"backend:cudaMallocAsync", "backend:cudaMallocAsync is the CUDA driver's allocator, not simulated: use backend:native"},
	}
	for _, tt := range tests {
		if _, err := parseAllocConf(tt.conf); err == nil || err.Error() != tt.want {
			t.Errorf("parseAllocConf(%q) = %v, want %q", tt.conf, err, tt.want)
		}
	}
	_, err := Lookup("torch-caching?alloc_conf=max_split_size_mb:20")
	if want := `torch-caching: alloc_conf="max_split_size_mb:20": CachingAllocator option max_split_size_mb too small, must be > 20`; err == nil || err.Error() != want {
		t.Errorf("Lookup: %v, want %s", err, want)
	}
	_, err = Lookup("torch-caching?alloc_conf=expandable_segments:True&max_split_size=64M")
	if want := "give the options one way, not both"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Lookup: %v, want %s", err, want)
	}
}

// TestTorchRoundSizeRanges checks that each size range takes its own
// number of divisions, > covering the last boundary's range as at
// 001074d2.
func TestTorchRoundSizeRanges(t *testing.T) {
	a := scBuild(t, "torch-caching?alloc_conf=roundup_power2_divisions:[256:1,512:2,1024:4,>:8]").(*torchCaching)
	tests := []struct{ size, want int64 }{
		{1000, 1024},                     // range 0 takes the first boundary's 1: plain rounding
		{300*scMiB + 1, 300*scMiB + 512}, // 256 MiB range: 1
		{600*scMiB + 1, 768 * scMiB},     // 512 MiB range: 2 steps of 256 MiB
		// 1 GiB range: >'s 8 steps of 128 MiB, not 1024's 4 of 256 MiB
		// (later PyTorch: 1280 MiB and 1,879,048,192).
		{1100 * scMiB, 1152 * scMiB},
		{1_610_612_737, 1_744_830_464},
		{3000 * scMiB, 3072 * scMiB},           // 2 GiB range: 8 steps of 256 MiB
		{2048 * scMiB, 2048 * scMiB},           // a power of two stays
		{40 * 1024 * scMiB, 40 * 1024 * scMiB}, // 32 GiB and up: the last range, 8 steps of 4 GiB
	}
	for _, tt := range tests {
		if got := a.roundSize(tt.size); got != tt.want {
			t.Errorf("roundSize(%d) = %d, want %d", tt.size, got, tt.want)
		}
	}
}

// TestTorchUpstreamSequences plays alloc/free sequences whose blocks (offset,
// size) follow by hand from 001074d2's malloc: round_size, get_pool,
// get_free_block (best fit by (size, address); no oversize block for a
// smaller request; an oversize request takes no block 20 MiB (kLargeBuffer)
// or more larger than it), get_allocation_size, should_split, and
// cudaMalloc's first fit here.
func TestTorchUpstreamSequences(t *testing.T) {
	const mib = scMiB
	tests := []struct {
		spec  string
		steps []scStep
	}{
		// roundup_power2_divisions [256:1,512:2,1024:4,>:8]: ranges 0-8
		// take 1, 9 (512 MiB) 2, 10 (1 GiB) and up 8.
		{"torch-caching?alloc_conf=roundup_power2_divisions:[256:1,512:2,1024:4,>:8]", []scStep{
			// 1,610,612,737: log2 30, range 10, 8 steps of 1 GiB/8 = 128 MiB
			// above 1 GiB: 1.5 GiB + 1 up to 1.5 GiB + 128 MiB = 1664 MiB,
			// its own segment (>= 10 MiB: rounded to 2 MiB, already is).
			scAlloc(1_610_612_737, 0, 1664*mib),
			// 1100 MiB: range 10, 8 steps: 1152 MiB, a new segment after.
			scAlloc(1100*mib, 1664*mib, 1152*mib),
			// 600 MiB + 1: range 9, 2 steps of 256 MiB: 768 MiB.
			scAlloc(600*mib+1, 2816*mib, 768*mib),
			scFree(1),
			// 1100 MiB again rounds to 1152 MiB: the cached block fits
			// exactly, no split.
			scAlloc(1100*mib, 1664*mib, 1152*mib),
			// 300 MiB + 1: range 8, 1 division: 512-byte rounding, 300 MiB +
			// 512 in a 302 MiB segment, whose 2 MiB - 512 rest exceeds 1 MiB
			// (kSmallSize) and is split off.
			scAlloc(300*mib+1, 3584*mib, 300*mib+512),
		}},
		// max_split_size_mb:21: blocks of 21 MiB or more are oversize.
		{"torch-caching?alloc_conf=max_split_size_mb:21", []scStep{
			scAlloc(80*mib, 0, 80*mib),
			scFree(0),
			// 56 MiB is oversize; the cached 80 MiB is 80 >= 56 + 20 (kLargeBuffer):
			// refused, a new 56 MiB segment (with later PyTorch's
			// max_non_split_rounding_mb:100 it would be taken).
			scAlloc(56*mib, 80*mib, 56*mib),
			// 75 MiB: 80 < 75 + 20, taken whole (an oversize request is never
			// split off).
			scAlloc(75*mib, 0, 80*mib),
			// 5 MiB: no cached block; a 20 MiB segment (1 to 10 MiB), split.
			scAlloc(5*mib, 136*mib, 5*mib),
			scFree(2),
			// 10 MiB below max_split never takes the oversize 56 MiB block:
			// the 15 MiB rest of the 20 MiB segment.
			scAlloc(10*mib, 141*mib, 10*mib),
			// 21 MiB is oversize at the boundary: a 22 MiB segment (2 MiB
			// rounding) handed out whole, since 56 >= 21 + 20.
			scAlloc(21*mib, 156*mib, 22*mib),
			// 40 MiB: the cached 56 MiB is within 20 MiB: taken whole.
			scAlloc(40*mib, 80*mib, 56*mib),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) { scPlay(t, scBuild(t, tt.spec), tt.steps) })
	}
}

// TestTorchExpandableSegments walks segments that grow in place.
func TestTorchExpandableSegments(t *testing.T) {
	const tib = int64(1) << 40
	a := scBuild(t, "torch-caching?alloc_conf=expandable_segments:True")
	scPlay(t, a, []scStep{
		scAlloc(1, 0, 512),                               // 0: small segment at 0 (1 TiB of address space), one 2 MiB page mapped
		scAlloc(3*scMiB, tib, 3*scMiB),                   // 1: large segment at 1 TiB, one 20 MiB page, the rest cached
		scAlloc(18*scMiB, tib+3*scMiB, 18*scMiB),         // 2: the 17 MiB rest plus a second page: the segment grows in place
		scFree(1),                                        // 3 MiB interior block cached
		scAlloc(2*scMiB+1, tib, 2*scMiB+512),             // 4: best fit is the interior block, split down to 512 bytes
		scAlloc(scMiB+scMiB/2, tib+21*scMiB, 1536*scKiB), // 5: from the 19 MiB tail
	})
	scStats(t, a, Stats{InUse: 2*scMiB + 512 + 18*scMiB + 1536*scKiB + 512, PeakInUse: 2*scMiB + 512 + 18*scMiB + 1536*scKiB + 512,
		Reserved: 42 * scMiB, PeakReserved: 42 * scMiB, LargestFreeChunk: 19*scMiB - 1536*scKiB, NumAllocs: 5})

	// Best fit counts a block followed by unmapped space as that much
	// larger: a 7 MiB request takes the 10 MiB interior block, not the
	// 8 MiB tail.
	a = scBuild(t, "torch-caching?alloc_conf=expandable_segments:True")
	scPlay(t, a, []scStep{
		scAlloc(10*scMiB, 0, 10*scMiB),
		scAlloc(2*scMiB, 10*scMiB, 2*scMiB),
		scFree(0),
		scAlloc(7*scMiB, 0, 7*scMiB),
	})
	scStats(t, a, Stats{InUse: 9 * scMiB, PeakInUse: 12 * scMiB, Reserved: 20 * scMiB, PeakReserved: 20 * scMiB,
		LargestFreeChunk: 8 * scMiB, NumAllocs: 3})

	// On OOM the wholly free pages are unmapped, and a segment left with
	// nothing mapped gives its address space back.
	a = scBuild(t, "torch-caching?memory_limit=40M&alloc_conf=expandable_segments:True")
	scPlay(t, a, []scStep{
		scAlloc(30*scMiB, 0, 30*scMiB), // two 20 MiB pages; 45 MiB of address space, 60 MiB in pages
		scOOM(1),                       // 40 + 2 > 40, and no free page to unmap
		scFree(0),
		scAlloc(1, 0, 512), // both pages unmapped, the segment gone, a small one at 0
	})
	scStats(t, a, Stats{InUse: 512, PeakInUse: 30 * scMiB, Reserved: 2 * scMiB, PeakReserved: 40 * scMiB,
		LargestFreeChunk: 2*scMiB - 512, NumAllocs: 2, OOMs: 1})

	// Unmapping keeps the free bytes before the first whole page cached.
	a = scBuild(t, "torch-caching?memory_limit=40M&alloc_conf=expandable_segments:True")
	scPlay(t, a, []scStep{
		scAlloc(5*scMiB, 0, 5*scMiB),
		scAlloc(16*scMiB, 5*scMiB, 16*scMiB), // a second page: [5, 40) MiB
		scFree(1),
		scAlloc(1, 60*scMiB, 512),            // 40 + 2 > 40: [20, 40) MiB unmapped; the small segment after the large one's 60 MiB
		scAlloc(15*scMiB, 5*scMiB, 15*scMiB), // the cached [5, 20) MiB
	})
	scStats(t, a, Stats{InUse: 20*scMiB + 512, PeakInUse: 21 * scMiB, Reserved: 22 * scMiB, PeakReserved: 40 * scMiB,
		LargestFreeChunk: 2*scMiB - 512, NumAllocs: 4})
}

// TestTorchStreams checks per-stream reuse: a cached block serves only its
// own stream, and a block another stream used is cached only once that
// stream has synced after the free.
func TestTorchStreams(t *testing.T) {
	a := scBuild(t, "torch-caching").(*torchCaching)
	alloc := func(size int64, stream int, want Block) {
		t.Helper()
		if b, err := a.AllocOn(size, stream); err != nil || b != want {
			t.Fatalf("AllocOn(%d, %d) = %+v, %v; want %+v", size, stream, b, err, want)
		}
	}
	alloc(scMiB, 0, Block{0, scMiB})                   // stream 0's small segment at 0
	alloc(512*scKiB, 1, Block{2 * scMiB, 512 * scKiB}) // stream 1 does not take stream 0's cached 1 MiB rest
	if err := a.RecordStream(0, 0); err != nil {       // its own stream: nothing to wait for
		t.Fatal(err)
	}
	if err := a.RecordStream(0, 1); err != nil {
		t.Fatal(err)
	}
	if err := a.RequestFree(0, 0); err != nil {
		t.Fatal(err)
	}
	if err := a.Free(0); !errors.Is(err, ErrBadFree) {
		t.Fatalf("Free of a block waiting for a stream: %v, want ErrBadFree", err)
	}
	if got := a.Stats().InUse; got != scMiB+512*scKiB {
		t.Fatalf("InUse = %d with a free waiting: want %d", got, scMiB+512*scKiB)
	}
	alloc(scMiB, 0, Block{scMiB, scMiB}) // the cached rest; the freed block still waits
	a.Sync(0)                            // not the stream it waits for
	alloc(scMiB, 0, Block{4 * scMiB, scMiB})
	a.Sync(1)
	alloc(scMiB, 0, Block{0, scMiB})                  // cached at stream 1's sync
	if err := a.RequestFree(2*scMiB, 1); err != nil { // nobody else used it: cached at once
		t.Fatal(err)
	}
	alloc(512*scKiB, 1, Block{2 * scMiB, 512 * scKiB})
	scStats(t, a, Stats{InUse: 3*scMiB + 512*scKiB, PeakInUse: 3*scMiB + 512*scKiB, Reserved: 6 * scMiB, PeakReserved: 6 * scMiB,
		LargestFreeChunk: 3 * scMiB / 2, NumAllocs: 6})
	if _, err := a.AllocOn(1, -1); err == nil || err.Error() != "torch-caching: stream -1: want 0 to 65535" {
		t.Errorf("AllocOn on stream -1: %v", err)
	}
}

// TestTorchReplayTwoStreams replays a two-stream trace with record_stream:
// the freed block is held until stream 1's sync, then reused.
func TestTorchReplayTwoStreams(t *testing.T) {
	tr, err := workloads.ReadTrace(strings.NewReader(`a,1,1048576,0
r,1,1
f,1,0
a,2,1048576,0
a,3,1048576,0
s,1
a,4,1048576,0
s,0
f,2,0
f,3,0
f,4,0
`), "two-streams")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Replay(context.Background(), scBuild(t, "torch-caching"), tr, ReplayOptions{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []AllocRecord{
		{ID: 1, Size: scMiB, Offset: 0, Chunk: scMiB},
		{ID: 2, Size: scMiB, Offset: scMiB, Chunk: scMiB},     // id 1's block waits for stream 1
		{ID: 3, Size: scMiB, Offset: 2 * scMiB, Chunk: scMiB}, // so a second segment
		{ID: 4, Size: scMiB, Offset: 0, Chunk: scMiB},         // cached at stream 1's sync
	}
	if !slices.Equal(res.Allocs, want) {
		t.Errorf("allocs = %+v, want %+v", res.Allocs, want)
	}
	if res.PeakReserved != 4*scMiB {
		t.Errorf("peak reserved %d, want %d", res.PeakReserved, 4*scMiB)
	}
}

// TestTorchReset checks that a reset allocator serves a script exactly as
// a fresh one.
func TestTorchReset(t *testing.T) {
	for _, c := range []struct {
		spec  string
		steps []scStep
	}{
		{"torch-caching?memory_limit=40M", []scStep{
			scAlloc(15*scMiB, 0, 16*scMiB), scFree(0), scAlloc(30*scMiB, 0, 30*scMiB), scOOM(12 * scMiB), scAlloc(1, 30*scMiB, 512)}},
		{"torch-caching?memory_limit=40M&alloc_conf=expandable_segments:True", []scStep{
			scAlloc(5*scMiB, 0, 5*scMiB), scAlloc(16*scMiB, 5*scMiB, 16*scMiB), scFree(1),
			scAlloc(1, 60*scMiB, 512), scAlloc(15*scMiB, 5*scMiB, 15*scMiB)}},
	} {
		a := scBuild(t, c.spec)
		scPlay(t, a, c.steps)
		want := a.Stats()
		a.(Resetter).Reset()
		scStats(t, a, Stats{})
		scPlay(t, a, c.steps)
		scStats(t, a, want)
	}
}

// offsetsOnly hides the block handles of a DeferredFreer, so the timed
// loops call it by offset.
type offsetsOnly struct{ DeferredFreer }

// tcState lists torch-caching's blocks (but those merged away) in address
// order: where memory is and what it is doing.
func tcState(a *torchCaching) []bfcChunk {
	var bs []bfcChunk
	for _, b := range a.blocks {
		if b.size > 0 {
			bs = append(bs, bfcChunk{addr: b.addr, size: b.size, bin: b.bin, inUse: b.inUse})
		}
	}
	slices.SortFunc(bs, func(x, y bfcChunk) int { return int(x.addr - y.addr) })
	return bs
}

// TestTorchHandlesMatchOffsets runs the timed loops with block handles and
// by offset, on one and on four streams, with and without OOMs, and wants
// the same OOMs, counters, pools and blocks; then it frees what is left
// by offset in both, which builds the address table the handle run never
// kept, and wants the same again.
func TestTorchHandlesMatchOffsets(t *testing.T) {
	one := randomTrace(20_000, 1000, 5)
	big := &workloads.Trace{Name: "big", Events: slices.Clone(one.Events)}
	for i := range big.Events {
		big.Events[i].Size *= 24 // up to 24 MiB: the large pool too
	}
	traces := []*workloads.Trace{one, onStreams(one, 4, 20_000, 3), big, onStreams(big, 4, 20_000, 9)}
	specs := []string{"torch-caching", "torch-caching?memory_limit=64M",
		"torch-caching?alloc_conf=expandable_segments:True&memory_limit=512M",
		"torch-caching?garbage_collection_threshold=0.5&max_split_size=32M&memory_limit=1G"}
	for _, tr := range traces {
		c, err := compileTrace(tr, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range specs {
			byHandle, byOffset := scBuild(t, spec).(*torchCaching), scBuild(t, spec).(*torchCaching)
			if _, ok := Allocator(byHandle).(blockHandles); !ok {
				t.Fatal("torch-caching has no block handles")
			}
			offs := make([]int64, c.slots)
			replay := func(a Allocator) int {
				t.Helper()
				var ooms int
				if c.streams || c.syncs {
					ooms, err = runStreams(context.Background(), a, c, offs)
				} else {
					ooms, err = run(context.Background(), a, c.ops, offs)
				}
				if err != nil {
					t.Fatalf("%s on %s: %v", spec, tr.Name, err)
				}
				return ooms
			}
			h, o := replay(byHandle), replay(offsetsOnly{byOffset})
			if spec == specs[1] && h == 0 {
				t.Errorf("%s on %s: no OOMs; the limit is meant to make some", spec, tr.Name)
			}
			if byHandle.indexed != byHandle.conf.expandable {
				t.Errorf("%s on %s: address table kept %v through a run by handles", spec, tr.Name, byHandle.indexed)
			}
			check := func(when string) {
				t.Helper()
				if h != o || byHandle.Stats() != byOffset.Stats() || !slices.Equal(byHandle.Pools(), byOffset.Pools()) {
					t.Errorf("%s on %s, %s: by handle %d OOMs, %+v, %v; by offset %d OOMs, %+v, %v", spec, tr.Name, when,
						h, byHandle.Stats(), byHandle.Pools(), o, byOffset.Stats(), byOffset.Pools())
				}
				if !slices.Equal(tcState(byHandle), tcState(byOffset)) {
					t.Errorf("%s on %s, %s: the blocks differ", spec, tr.Name, when)
				}
			}
			check("after the trace")
			for _, a := range []*torchCaching{byHandle, byOffset} {
				for _, b := range tcState(a) {
					if b.inUse {
						if err := a.Free(b.addr); err != nil {
							t.Fatalf("%s on %s: free of %d: %v", spec, tr.Name, b.addr, err)
						}
					}
				}
			}
			check("after freeing the rest")
		}
	}
}

// TestTorchBadHandles wants the handle calls to refuse what is not an
// allocated block's handle, as the offset calls refuse offsets.
func TestTorchBadHandles(t *testing.T) {
	a := scBuild(t, "torch-caching").(*torchCaching)
	h, err := a.allocHandle(1000, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.requestFreeHandle(h, 0); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []int32{h, -1, int32(len(a.blocks)), 1 << 30} {
		for name, call := range map[string]func() error{
			"free":    func() error { return a.freeHandle(bad) },
			"request": func() error { return a.requestFreeHandle(bad, 0) },
			"record":  func() error { return a.recordStreamHandle(bad, 1) },
		} {
			err := call()
			want := fmt.Sprintf("torch-caching: block handle %d: %v", bad, ErrBadFree)
			if !errors.Is(err, ErrBadFree) || err.Error() != want {
				t.Errorf("%s of handle %d: %v; want %s", name, bad, err, want)
			}
		}
	}
}
