package allocators

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"membench/workloads"
)

// onStreams spreads tr over k streams and keeps its first n events: each
// allocation goes to a random stream, one tensor in four is also used by
// another stream (a record right after its allocation), frees are made on
// the producing stream, and a random stream syncs after every eighth
// event.
func onStreams(tr *workloads.Trace, k, n int, seed uint64) *workloads.Trace {
	r := rand.New(rand.NewPCG(seed, 2))
	out := &workloads.Trace{Name: tr.Name + "-streams", Events: make([]workloads.Event, 0, n)}
	producer := map[int]int32{}
	add := func(e workloads.Event) {
		if len(out.Events) < n {
			out.Events = append(out.Events, e)
		}
		if len(out.Events)%8 == 7 && len(out.Events) < n {
			out.Events = append(out.Events, workloads.Event{Kind: workloads.Sync, Stream: r.Int32N(int32(k))})
		}
	}
	for _, e := range tr.Events {
		switch e.Kind {
		case workloads.Alloc:
			e.Stream = r.Int32N(int32(k))
			producer[e.ID] = e.Stream
			add(e)
			if r.IntN(4) == 0 {
				add(workloads.Event{Kind: workloads.Record, ID: e.ID, Stream: (e.Stream + 1 + r.Int32N(int32(k-1))) % int32(k)})
			}
		case workloads.Free:
			e.Stream = producer[e.ID]
			add(e)
		}
	}
	return out
}

// BenchmarkStreamReplay times Replay's timed loop for every registered
// allocator on a 10^5-event trace on one stream and on a 10^5-event trace
// on four streams with records and sync points, with a fresh or reset
// allocator per replay, as Replay times it. ns/event is wall time per trace event; cpu-ns/event the CPU
// time of the replaying thread, which a loaded machine does not inflate.
func BenchmarkStreamReplay(b *testing.B) {
	one := randomTrace(100_000, 1000, 42)
	traces := []struct {
		name string
		tr   *workloads.Trace
	}{
		{"1-stream", one},
		{"4-streams", onStreams(one, 4, 100_000, 7)},
	}
	for _, tc := range traces {
		c, err := compileTrace(tc.tr, 0)
		if err != nil {
			b.Fatal(err)
		}
		for _, info := range All() {
			b.Run(tc.name+"/"+info.Name, func(b *testing.B) {
				f, err := Lookup(info.Name)
				if err != nil {
					b.Fatal(err)
				}
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				offs := make([]int64, c.slots)
				ctx := context.Background()
				var cpu time.Duration
				a := f.New()
				b.ResetTimer()
				for range b.N {
					// Warm where the allocator can reset, as Replay runs it.
					if rs, ok := a.(Resetter); ok {
						rs.Reset()
					} else {
						b.StopTimer()
						a = f.New()
						b.StartTimer()
					}
					t0 := threadCPU()
					if c.streams || c.syncs {
						_, err = runStreams(ctx, a, c, offs)
					} else {
						_, err = run(ctx, a, c.ops, offs)
					}
					cpu += threadCPU() - t0
					if err != nil {
						b.Fatal(err)
					}
				}
				events := float64(b.N) * float64(len(tc.tr.Events))
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/events, "ns/event")
				b.ReportMetric(float64(cpu.Nanoseconds())/events, "cpu-ns/event")
			})
		}
	}
}
