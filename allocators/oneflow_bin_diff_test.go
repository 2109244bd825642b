package allocators_test

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"membench/allocators"
	"membench/allocators/allocatortest"
)

var (
	updateOneflowDiff = flag.Bool("update-oneflow-diff", false, "rewrite testdata/oneflow_diff.txt from the current oneflow-bin")
	updateFewSizes    = flag.Bool("update-few-sizes", false, "rewrite testdata/few_sizes_diff.txt from the current torch-caching and oneflow-bin")
)

// oneflowDiffSpecs are the configurations the differential traces run
// under: the default, memory limits that force OOMs and shrinks, and
// alignments below 256 bytes, whose sizes fall between size classes.
var oneflowDiffSpecs = []string{
	"oneflow-bin",
	"oneflow-bin?memory_limit=160M",
	"oneflow-bin?memory_limit=160M&shrink_on_oom=true",
	"oneflow-bin?alignment=256",
	"oneflow-bin?alignment=1&memory_limit=200M",
	"oneflow-bin?alignment=64&memory_limit=120M&shrink_on_oom=true",
}

// TestOneflowDifferential replays 192 random traces on 1 to 4 streams
// (the last 24 on 70) through oneflow-bin under every configuration and
// compares a digest of every offset, block size, OOM and the stats after
// every event with testdata/oneflow_diff.txt, recorded from the
// implementation that kept every free piece in one ordered set (commit
// b40e590). Rewrite it with -update-oneflow-diff only when oneflow-bin's
// behaviour changes on purpose.
func TestOneflowDifferential(t *testing.T) {
	const traces, events = 192, 300
	var got []string
	for seed := range uint64(traces) {
		spec := oneflowDiffSpecs[seed%uint64(len(oneflowDiffSpecs))]
		k := 1 + int(seed/uint64(len(oneflowDiffSpecs)))%4
		if seed >= traces-24 {
			k = 70 // past the streams kept in a slice
		}
		h := sha256.New()
		diffTrace(t, mustNew(t, spec), seed, k, events, diffSizes, h)
		got = append(got, fmt.Sprintf("%d %d %s %x", seed, k, spec, h.Sum(nil)))
	}
	checkDigests(t, filepath.Join("testdata", "oneflow_diff.txt"), got, *updateOneflowDiff)
}

// fewSizes draws from a handful of sizes, so that many free blocks of one
// size (whole segments, equal remainders) pile up in one size class.
func fewSizes(r *rand.Rand) int64 {
	switch r.IntN(4) {
	case 0:
		return 512 * (1 + r.Int64N(4))
	case 1:
		return 1 << 20
	case 2:
		return 2 << 20
	default:
		return (1 + r.Int64N(3)) << 19
	}
}

// TestFewSizesDifferential replays 24 random traces of 3000 events drawn
// from a few sizes through torch-caching and oneflow-bin, so that size
// classes hold dozens of blocks of one size, and compares digests as
// TestTorchDifferential does with testdata/few_sizes_diff.txt, recorded
// before classes kept such blocks in heaps (commit 6076264, where they
// went to the ordered set).
func TestFewSizesDifferential(t *testing.T) {
	specs := []string{"torch-caching", "torch-caching?memory_limit=64M", "oneflow-bin", "oneflow-bin?memory_limit=64M&shrink_on_oom=true"}
	var got []string
	for seed := range uint64(24) {
		spec := specs[seed%uint64(len(specs))]
		k := 1 + int(seed/uint64(len(specs)))%3
		h := sha256.New()
		diffTrace(t, mustNew(t, spec), seed, k, 3000, fewSizes, h)
		got = append(got, fmt.Sprintf("%d %d %s %x", seed, k, spec, h.Sum(nil)))
	}
	checkDigests(t, filepath.Join("testdata", "few_sizes_diff.txt"), got, *updateFewSizes)
}

// TestTimedStreamReplays: the timed replays of a stream trace (which skip
// the calls an allocator takes as no-ops) meet the same OOMs as the
// recorded replay, which Replay checks, under torch-caching, which
// completes frees itself, and oneflow-bin and bfc, which get them
// completed.
func TestTimedStreamReplays(t *testing.T) {
	tr := allocatortest.StreamTrace(4000, 4<<20, 3)
	for _, spec := range []string{"torch-caching?memory_limit=48M", "oneflow-bin?memory_limit=48M", "bfc?memory_limit=12M"} {
		f, err := allocators.Lookup(spec)
		if err != nil {
			t.Fatal(err)
		}
		res, err := allocators.Replay(context.Background(), f.New(), tr, allocators.ReplayOptions{Repeat: 3, New: f.New})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if res.OOMs == 0 || len(res.TimesNs) != 3 {
			t.Errorf("%s: %d OOMs, %d timed replays; want some OOMs and 3", spec, res.OOMs, len(res.TimesNs))
		}
	}
}
