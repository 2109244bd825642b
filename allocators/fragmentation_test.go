package allocators

import (
	"context"
	"fmt"
	"testing"
)

// TestFragmentationAddsUp checks, for every allocator, that the breakdown
// at the peak and at each OOM adds up: reserved = requested + internal +
// external, the largest free block fits in the external bytes, and the
// pools split exactly the reserved and handed-out bytes.
func TestFragmentationAddsUp(t *testing.T) {
	tr := randomTrace(4000, 200, 7)
	ooms := 0
	defer func() {
		if ooms == 0 {
			t.Error("no replay ran out of memory: the OOM breakdowns went unchecked")
		}
	}()
	for _, info := range All() {
		for _, spec := range []string{info.Name, info.Name + "?memory_limit=24M"} {
			t.Run(spec, func(t *testing.T) {
				res, err := Replay(context.Background(), scBuild(t, spec), tr, ReplayOptions{Verify: true})
				if err != nil {
					t.Fatal(err)
				}
				check := func(what string, b *Breakdown) {
					t.Helper()
					var reserved, allocated int64
					for _, p := range b.Pools {
						reserved += p.Reserved
						allocated += p.Allocated
					}
					switch {
					case b.Requested+b.Internal+b.External != b.Reserved:
						t.Errorf("%s: %+v: requested + internal + external != reserved", what, b)
					case b.Internal < 0 || b.External < 0 || b.LargestFree > b.External:
						t.Errorf("%s: %+v: negative fragmentation or largest free beyond the free bytes", what, b)
					case reserved != b.Reserved || allocated != b.Requested+b.Internal:
						t.Errorf("%s: pools %+v hold %d reserved, %d allocated; want %d, %d", what, b.Pools, reserved, allocated, b.Reserved, b.Requested+b.Internal)
					}
				}
				if res.Peak.Reserved != res.PeakReserved || res.Peak.Event < 1 {
					t.Errorf("peak breakdown at event %d has reserved %d, want the peak %d", res.Peak.Event, res.Peak.Reserved, res.PeakReserved)
				}
				check("peak", &res.Peak)
				ooms += res.OOMs
				if len(res.OOMsAt) != res.OOMs {
					t.Errorf("%d OOM breakdowns for %d OOMs", len(res.OOMsAt), res.OOMs)
				}
				for i := range res.OOMsAt {
					check(fmt.Sprintf("OOM %d", i), &res.OOMsAt[i].Breakdown)
				}
			})
		}
	}
}
