package allocators_test

import (
	"context"
	"testing"

	"membench/allocators"
	"membench/allocators/allocatortest"
)

// BenchmarkTorchCachingStreams replays a 10^5-event trace on four streams
// (records, views, sync points) through torch-caching; ns/event is the
// median of five timed replays of the bare call loop on fresh allocators.
// The bump baseline shows the cost of the replay loop itself.
func BenchmarkTorchCachingStreams(b *testing.B) {
	tr := allocatortest.StreamTrace(100_000, 4<<20, 1)
	for _, spec := range []string{"torch-caching", "torch-caching?alloc_conf=expandable_segments:True", "bump"} {
		b.Run(spec, func(b *testing.B) {
			f, err := allocators.Lookup(spec)
			if err != nil {
				b.Fatal(err)
			}
			var ns float64
			for b.Loop() {
				res, err := allocators.Replay(context.Background(), f.New(), tr, allocators.ReplayOptions{Repeat: 5, New: f.New})
				if err != nil {
					b.Fatal(err)
				}
				ns = res.NsPerOp
			}
			b.ReportMetric(ns, "ns/event")
		})
	}
}
