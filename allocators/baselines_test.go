package allocators

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestBump(t *testing.T) {
	a := scBuild(t, "bump?memory_limit=4K")
	scPlay(t, a, []scStep{
		scAlloc(1, 0, 256),
		scAlloc(300, 256, 512),
		scFree(0),
		scAlloc(256, 768, 256), // never reused
		scAlloc(3000, 1024, 3072),
		scOOM(1),
	})
	scStats(t, a, Stats{InUse: 3840, PeakInUse: 3840, Reserved: 4096, PeakReserved: 4096, NumAllocs: 4, OOMs: 1})
}

func TestPoolClasses(t *testing.T) {
	for _, tt := range []struct {
		size int64
		want int
	}{{1, 8}, {256, 8}, {257, 9}, {1000, 10}, {1024, 10}, {scMiB, 20}, {scMiB + 1, 21}} {
		if got := poolClass(tt.size); got != tt.want {
			t.Errorf("poolClass(%d) = %d, want %d", tt.size, got, tt.want)
		}
	}
}

func TestPool(t *testing.T) {
	a := scBuild(t, "pool?memory_limit=8K")
	scPlay(t, a, []scStep{
		scAlloc(1, 0, 256),
		scAlloc(300, 256, 512),
		scAlloc(200, 768, 256),
		scFree(0),
		scFree(2),
		scAlloc(100, 768, 256), // LIFO: the last chunk freed in the class
		scAlloc(256, 0, 256),
		scAlloc(257, 1024, 512), // class 512 is empty: carved anew
		scFree(1),
		scAlloc(4000, 1536, 4096),
		scOOM(4096), // the 4 KiB class is empty and the bump pointer would pass 8K
		scAlloc(512, 256, 512),
	})
	scStats(t, a, Stats{InUse: 5632, PeakInUse: 5632, Reserved: 5632, PeakReserved: 5632, NumAllocs: 8, OOMs: 1})
	if err := a.Free(1536); err != nil {
		t.Fatal(err)
	}
	if got := a.Stats().LargestFreeChunk; got != 4096 {
		t.Errorf("LargestFreeChunk = %d, want 4096 (the cached 4 KiB chunk)", got)
	}
}

// TestFitPolicies shows first fit and best fit choosing different holes,
// coalescing and the arena growing only by what the tail lacks.
func TestFitPolicies(t *testing.T) {
	prefix := []scStep{
		scAlloc(1024, 0, 1024),
		scAlloc(256, 1024, 256),
		scAlloc(512, 1280, 512),
		scAlloc(256, 1792, 256),
		scFree(0), // hole of 1024 at 0
		scFree(2), // hole of 512 at 1280
	}
	first := scBuild(t, "first-fit")
	scPlay(t, first, append(slices.Clone(prefix), scAlloc(400, 0, 512), scAlloc(512, 512, 512)))
	best := scBuild(t, "best-fit")
	scPlay(t, best, append(slices.Clone(prefix), scAlloc(400, 1280, 512), scAlloc(512, 0, 512)))

	// Freeing 1024..1280 joins the holes on both sides.
	a := scBuild(t, "best-fit?memory_limit=4K")
	scPlay(t, a, append(slices.Clone(prefix),
		scFree(1),
		scAlloc(1792, 0, 1792), // the coalesced [0, 1792)
		scFree(3),
		scAlloc(2304, 1792, 2304), // the tail [1792, 2048) grows by 2048 to 4096
		scOOM(1),
	))
	scStats(t, a, Stats{InUse: 4096, PeakInUse: 4096, Reserved: 4096, PeakReserved: 4096, NumAllocs: 6, OOMs: 1})
}

func TestBuddy(t *testing.T) {
	a := scBuild(t, "buddy?memory_limit=4K")
	scPlay(t, a, []scStep{
		scAlloc(1, 0, 256),       // arena 256
		scAlloc(300, 512, 512),   // arena doubles twice, to 1024
		scAlloc(200, 256, 256),   // the free buddy of block 0
		scAlloc(600, 1024, 1024), // arena 2048
		scFree(0),
		scFree(2), // 0 and 256 merge, then with nothing: 512 is live
		scAlloc(512, 0, 512),
		scOOM(4097),               // an 8 KiB block would need an arena of 16K
		scAlloc(2048, 2048, 2048), // the arena doubles to the limit
		scOOM(1),
	})
	scStats(t, a, Stats{InUse: 4096, PeakInUse: 4096, Reserved: 4096, PeakReserved: 4096, NumAllocs: 6, OOMs: 2})
}

func TestBuddyMergesAndGrowsWhole(t *testing.T) {
	a := scBuild(t, "buddy")
	scPlay(t, a, []scStep{
		scAlloc(256, 0, 256),
		scAlloc(256, 256, 256),
		scFree(0),
		scFree(1),
		scAlloc(1024, 0, 1024), // the free arena [0, 512) doubles and merges into one block
	})
	scStats(t, a, Stats{InUse: 1024, PeakInUse: 1024, Reserved: 1024, PeakReserved: 1024, NumAllocs: 3})
	if err := a.Free(0); err != nil {
		t.Fatal(err)
	}
	if got := a.Stats().LargestFreeChunk; got != 1024 {
		t.Errorf("LargestFreeChunk = %d, want 1024", got)
	}
}

// TestBadRequests checks every allocator here refuses a size <= 0 without
// counting it, and turns an absurd size into an OOM.
func TestBadRequests(t *testing.T) {
	for _, name := range []string{"bump", "pool", "first-fit", "best-fit", "buddy", "torch-caching"} {
		a := scBuild(t, name)
		for _, size := range []int64{0, -5} {
			if _, err := a.Alloc(size); err == nil || errors.Is(err, ErrOOM) {
				t.Errorf("%s: Alloc(%d) = %v, want a non-OOM error", name, size, err)
			}
		}
		if _, err := a.Alloc(1 << 62); !errors.Is(err, ErrOOM) {
			t.Errorf("%s: Alloc(1<<62) = %v, want an OOM", name, err)
		}
		if st := a.Stats(); st != (Stats{OOMs: 1}) {
			t.Errorf("%s: stats %+v, want only one OOM", name, st)
		}
		if err := a.Free(0); !errors.Is(err, ErrBadFree) {
			t.Errorf("%s: Free(0) on a fresh allocator = %v, want ErrBadFree", name, err)
		}
	}
}

// TestOrdsetAgainstModel drives the treap with random operations and
// compares every query with a sorted slice.
func TestOrdsetAgainstModel(t *testing.T) {
	type pair struct{ key, sub, val int64 }
	cmp := func(a, b pair) int {
		if a.key != b.key {
			return int(a.key - b.key)
		}
		return int(a.sub - b.sub)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var s ordset
	var model []pair
	for i := range 20000 {
		p := pair{rng.Int64N(50), rng.Int64N(4), rng.Int64N(1000)}
		idx, found := slices.BinarySearchFunc(model, p, cmp)
		if rng.IntN(3) == 0 {
			if s.remove(p.key, p.sub) != found {
				t.Fatalf("op %d: remove(%d, %d) disagrees with the model", i, p.key, p.sub)
			}
			if found {
				model = slices.Delete(model, idx, idx+1)
			}
		} else if !found {
			s.insert(p.key, p.sub, p.val)
			model = slices.Insert(model, idx, p)
		}
		if s.len != len(model) {
			t.Fatalf("op %d: len %d, model %d", i, s.len, len(model))
		}
		q := pair{rng.Int64N(52) - 1, rng.Int64N(4), 0}
		qi, qfound := slices.BinarySearchFunc(model, q, cmp)
		check := func(what string, got *onode, want int) {
			t.Helper()
			if (got == nil) != (want < 0 || want >= len(model)) ||
				(got != nil && (got.key != model[want].key || got.sub != model[want].sub)) {
				t.Fatalf("op %d: %s(%d, %d) = %+v, want index %d of %v", i, what, q.key, q.sub, got, want, model)
			}
		}
		check("ceil", s.ceil(q.key, q.sub), qi)
		check("below", s.below(q.key, q.sub), qi-1)
		if qfound {
			check("floor", s.floor(q.key, q.sub), qi)
		} else {
			check("floor", s.floor(q.key, q.sub), qi-1)
		}
		v := rng.Int64N(1100)
		want := slices.IndexFunc(model, func(p pair) bool { return p.val >= v })
		check("firstAtLeast", s.firstAtLeast(v), want)
		var maxV int64
		for _, p := range model {
			maxV = max(maxV, p.val)
		}
		if s.maxVal() != maxV {
			t.Fatalf("op %d: maxVal %d, want %d", i, s.maxVal(), maxV)
		}
	}
}
