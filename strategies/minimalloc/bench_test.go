package minimalloc

import (
	"context"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"membench/strategies"
	"membench/workloads"
	_ "membench/workloads/fieldsets"
)

// BenchmarkChallenging solves MiniMalloc's challenging instances at
// capacity 1 MiB with the code before the speed work (old, ref_test.go)
// and today's (new), in one process for an A/B: C, J and K, or all of
// A–K with MINIMALLOC_CHALLENGING=all.
func BenchmarkChallenging(b *testing.B) {
	all := os.Getenv("MINIMALLOC_CHALLENGING") == "all"
	for _, c := range readGolden(b, "testdata/challenging/cases.jsonl") {
		if !all && !strings.HasSuffix(c.Name, "-C") && !strings.HasSuffix(c.Name, "-J") && !strings.HasSuffix(c.Name, "-K") {
			continue
		}
		raw, err := os.ReadFile(c.File)
		if err != nil {
			b.Fatal(err)
		}
		bufs, err := parseCSV(string(raw))
		if err != nil {
			b.Fatal(err)
		}
		p := caseParams(&c)
		prob := toProblem(bufs)
		eff := func(x, y int) (int64, bool) { return workloads.EffectiveSize(prob, x, y) }
		for _, impl := range []struct {
			name  string
			solve func(context.Context, []buffer, func(a, b int) (int64, bool), int64, *solverParams) error
		}{
			{"old", func(ctx context.Context, bufs []buffer, eff func(a, b int) (int64, bool), capacity int64, p *solverParams) error {
				_, err := refSolveProblem(ctx, bufs, eff, capacity, p, 0)
				return err
			}},
			{"new", func(ctx context.Context, bufs []buffer, eff func(a, b int) (int64, bool), capacity int64, p *solverParams) error {
				_, err := solveProblem(ctx, bufs, eff, capacity, p, 0)
				return err
			}},
		} {
			b.Run(c.Name+"/"+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					if err := impl.solve(context.Background(), bufs, eff, c.Capacity, &p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkIdeallocY1 plans idealloc's Y_1 (62,185 buffers, 180 million
// overlapping pairs) in capacity mode at the capacity membench poses it
// at, reporting the search nodes and the peak of the Go heap sampled
// every 100 ms. It takes tens of seconds: set MINIMALLOC_Y1=1 to run it.
func BenchmarkIdeallocY1(b *testing.B) {
	if os.Getenv("MINIMALLOC_Y1") == "" {
		b.Skip("set MINIMALLOC_Y1=1: tens of seconds a plan")
	}
	w, err := workloads.Load("idealloc/y-1")
	if err != nil {
		b.Fatal(err)
	}
	s, err := strategies.Lookup("minimalloc")
	if err != nil {
		b.Fatal(err)
	}
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
		}
	}()
	defer close(done)
	var nodes int64
	for range b.N {
		plan, err := s.Plan(context.Background(), w.Problem)
		if err != nil {
			b.Fatal(err)
		}
		nodes = plan.Nodes
	}
	b.ReportMetric(float64(nodes), "nodes")
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
}
