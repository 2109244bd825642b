package allocators_test

import (
	"math/rand/v2"
	"testing"

	"membench/allocators"
)

// benchEvent is one call of a benchmark trace: an allocation of size bytes
// for id, or (size 0) the free of id.
type benchEvent struct {
	id   int
	size int64
}

// benchTrace returns n events: random allocations (log-uniform from 1 byte
// to 4 MiB) and frees of random live ids, about 1000 live at a time, every
// id freed by the end.
func benchTrace(n int) (events []benchEvent, ids int) {
	rng := rand.New(rand.NewPCG(42, 1))
	var live []int
	for len(events)+len(live) < n {
		if len(live) == 0 || (len(live) < 2000 && rng.IntN(2) == 0) {
			size := 1 + rng.Int64N(int64(1)<<(1+rng.IntN(22)))
			events = append(events, benchEvent{ids, size})
			live = append(live, ids)
			ids++
			continue
		}
		i := rng.IntN(len(live))
		events = append(events, benchEvent{live[i], 0})
		live[i] = live[len(live)-1]
		live = live[:len(live)-1]
	}
	for _, id := range live {
		events = append(events, benchEvent{id, 0})
	}
	return events, ids
}

// BenchmarkAllocators replays a 10^5-event trace through a fresh instance
// of every registered allocator; ns/call is the time per Alloc or Free.
func BenchmarkAllocators(b *testing.B) {
	events, ids := benchTrace(100_000)
	for _, info := range allocators.All() {
		b.Run(info.Name, func(b *testing.B) {
			f, err := allocators.Lookup(info.Name)
			if err != nil {
				b.Fatal(err)
			}
			offs := make([]int64, ids)
			for b.Loop() {
				a := f.New()
				for _, ev := range events {
					if ev.size > 0 {
						blk, err := a.Alloc(ev.size)
						if err != nil {
							blk.Offset = -1
						}
						offs[ev.id] = blk.Offset
					} else if offs[ev.id] >= 0 {
						if err := a.Free(offs[ev.id]); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(events)), "ns/call")
		})
	}
}
