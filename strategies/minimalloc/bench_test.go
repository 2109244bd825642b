package minimalloc

import (
	"context"
	"os"
	"strings"
	"testing"

	"membench/workloads"
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
