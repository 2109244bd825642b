package strategies

import (
	"context"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"membench/workloads"
	_ "membench/workloads/fieldsets" // registers idealloc/*
)

// BenchmarkTFLiteGPUFieldsets is the A/B benchmark of TFLite GPU's object
// planners on idealloc's G_1 and Y_1: "old" is greedy-by-size as it was
// before gbsTree (gbsOldObjects, greedy_by_size_old_test.go), "new" the
// planner, in the same process; greedy-by-breadth runs beside them.
// Besides time and -benchmem's totals it reports peak-heap-B: the most heap
// held by objects (runtime/metrics, live or not yet swept) while one run
// goes on, sampled every millisecond, less the heap held before it.
//
//	go test ./strategies -run '^$' -bench TFLiteGPUFieldsets -benchmem -count 5
func BenchmarkTFLiteGPUFieldsets(b *testing.B) {
	planners := []struct {
		name string
		run  func(context.Context, []workloads.Buffer) error
	}{
		{"greedy-by-size/old", func(ctx context.Context, bufs []workloads.Buffer) error {
			_, _, err := gbsOldObjects(ctx, bufs)
			return err
		}},
		{"greedy-by-size/new", func(ctx context.Context, bufs []workloads.Buffer) error {
			_, _, err := greedyBySizeObjects(ctx, bufs)
			return err
		}},
		{"greedy-by-breadth", func(ctx context.Context, bufs []workloads.Buffer) error {
			_, err := greedyByBreadthObjects(ctx, bufs)
			return err
		}},
	}
	for _, w := range []string{"idealloc/g-1", "idealloc/y-1"} {
		bufs := loadWorkload(b, w).Buffers
		for _, p := range planners {
			b.Run(w[len("idealloc/"):]+"/"+p.name, func(b *testing.B) {
				run := func() {
					if err := p.run(context.Background(), bufs); err != nil {
						b.Fatal(err)
					}
				}
				peak := peakHeap(run)
				for b.Loop() {
					run()
				}
				b.ReportMetric(float64(peak), "peak-heap-B")
			})
		}
	}
}

// peakHeap runs f and returns the most heap held by objects while it
// ran, sampled every millisecond, less what was held before it.
func peakHeap(f func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base := read()
	done := make(chan struct{})
	most := make(chan uint64)
	go func() {
		var m uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			m = max(m, read())
			select {
			case <-done:
				most <- m
				return
			case <-tick.C:
			}
		}
	}()
	f()
	end := read()
	close(done)
	return max(<-most, end) - base
}
