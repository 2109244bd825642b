package allocators_test

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"hash"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"membench/allocators"
)

var updateTorchDiff = flag.Bool("update-torch-diff", false, "rewrite testdata/torch_diff.txt from the current torch-caching")

// torchDiffSpecs are the configurations the differential traces run
// under: every option, with and without a memory_limit that forces OOMs,
// garbage collection and the release of cached segments.
var torchDiffSpecs = []string{
	"torch-caching",
	"torch-caching?memory_limit=160M",
	"torch-caching?alloc_conf=max_split_size_mb:40",
	"torch-caching?alloc_conf=max_split_size_mb:24&memory_limit=200M",
	"torch-caching?alloc_conf=roundup_power2_divisions:[256:1,512:2,1024:4,>:8]",
	"torch-caching?alloc_conf=roundup_power2_divisions:4,garbage_collection_threshold:0.5&memory_limit=240M",
	"torch-caching?alloc_conf=expandable_segments:True",
	"torch-caching?alloc_conf=expandable_segments:True,max_split_size_mb:30&memory_limit=180M",
}

// diffSizes draws the request sizes of the differential traces. Round
// sizes come too, so that exact fits and the rules' boundaries
// (max_split_size, 20 MiB of waste) come up.
func diffSizes(r *rand.Rand) int64 {
	switch c := r.IntN(20); {
	case c < 9:
		return 1 + r.Int64N(1<<20)
	case c < 14:
		return 1 + r.Int64N(12<<20)
	case c < 16:
		return 1 + r.Int64N(64<<20)
	case c < 18:
		return (1 + r.Int64N(64)) << 20
	default:
		return 512 * (1 + r.Int64N(4096))
	}
}

// diffTrace drives a through one random trace of n events on k streams
// (allocations of sizes drawn by sizes, immediate and requested frees,
// record_stream, syncs),
// then resets it and drives it again, writing every result and the stats
// (and pools, for a PoolReporter) after every event to w. An allocator
// that is not a DeferredFreer gets the same trace with records and syncs
// left out and every free complete.
func diffTrace(t *testing.T, a allocators.Allocator, seed uint64, k, n int, sizes func(*rand.Rand) int64, w hash.Hash) {
	sa := a.(allocators.StreamAllocator)
	df, deferred := a.(allocators.DeferredFreer)
	pr, pools := a.(allocators.PoolReporter)
	for pass := range 2 {
		r := rand.New(rand.NewPCG(seed, 11))
		type live struct {
			off    int64
			stream int
		}
		var lives []live
		for i := range n {
			fmt.Fprintf(w, "%d %d:", pass, i)
			switch op := r.IntN(16); {
			case op < 7 || len(lives) == 0:
				size := sizes(r)
				s := r.IntN(k)
				b, err := sa.AllocOn(size, s)
				switch {
				case errors.Is(err, allocators.ErrOOM):
					fmt.Fprintf(w, " alloc %d on %d: OOM", size, s)
				case err != nil:
					t.Fatalf("seed %d event %d: AllocOn(%d, %d): %v", seed, i, size, s, err)
				default:
					fmt.Fprintf(w, " alloc %d on %d: %d+%d", size, s, b.Offset, b.Size)
					lives = append(lives, live{b.Offset, s})
				}
			case op < 9:
				l := lives[r.IntN(len(lives))]
				s := r.IntN(k)
				if !deferred {
					break
				}
				if err := df.RecordStream(l.off, s); err != nil {
					t.Fatalf("seed %d event %d: RecordStream(%d, %d): %v", seed, i, l.off, s, err)
				}
				fmt.Fprintf(w, " record %d on %d", l.off, s)
			case op < 14:
				j := r.IntN(len(lives))
				l := lives[j]
				lives[j] = lives[len(lives)-1]
				lives = lives[:len(lives)-1]
				var err error
				if op == 13 || !deferred {
					err = sa.Free(l.off)
				} else {
					err = df.RequestFree(l.off, l.stream)
				}
				if err != nil {
					t.Fatalf("seed %d event %d: free of %d: %v", seed, i, l.off, err)
				}
				fmt.Fprintf(w, " free %d (%d)", l.off, op)
			default:
				s := r.IntN(k)
				if !deferred {
					break
				}
				df.Sync(s)
				fmt.Fprintf(w, " sync %d", s)
			}
			fmt.Fprintf(w, " %+v", a.Stats())
			if pools {
				fmt.Fprintf(w, " %+v", pr.Pools())
			}
			fmt.Fprintln(w)
		}
		a.(allocators.Resetter).Reset()
	}
}

// TestTorchDifferential replays 320 random traces on 1 to 4 streams (the
// last 32 on 18) through torch-caching under every option and compares a
// digest of every offset, block size, OOM, stats and pool bytes after
// every event with
// testdata/torch_diff.txt, recorded from the implementation before its
// indexes were rewritten for speed (ordered sets and a map, commit
// 0920aca). The max_split_size_mb:24 traces were re-recorded when their
// max_non_split_rounding_mb:64, which PyTorch 001074d2 does not know, was
// dropped (seeds 3 mod 8; the 12 whose digests moved took a cached oversize
// block 20 to 64 MiB larger than the request). Rewrite it with
// -update-torch-diff only when torch-caching's behaviour changes on purpose.
func TestTorchDifferential(t *testing.T) {
	const traces, events = 320, 300
	path := filepath.Join("testdata", "torch_diff.txt")
	var got []string
	for seed := range uint64(traces) {
		spec := torchDiffSpecs[seed%uint64(len(torchDiffSpecs))]
		k := 1 + int(seed/uint64(len(torchDiffSpecs)))%4
		if seed >= traces-32 {
			k = 18 // past the streams whose pools get size classes
		}
		h := sha256.New()
		diffTrace(t, mustNew(t, spec), seed, k, events, diffSizes, h)
		got = append(got, fmt.Sprintf("%d %d %s %x", seed, k, spec, h.Sum(nil)))
	}
	checkDigests(t, path, got, *updateTorchDiff)
}

// checkDigests compares the digest lines got with the file at path, or
// rewrites the file with them when update is set.
func checkDigests(t *testing.T, path string, got []string, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		want = append(want, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(got) {
		t.Fatalf("%s: %d traces, want %d", path, len(want), len(got))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("trace %d differs from the recorded replay:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}
