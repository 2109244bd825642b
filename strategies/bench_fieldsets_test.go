package strategies

import (
	"context"
	"fmt"
	"testing"

	"membench/workloads"
	_ "membench/workloads/fieldsets"
)

// fieldProblem loads a registered workload (idealloc's instances are
// shipped in workloads/fieldsets).
func fieldProblem(b *testing.B, name string) *workloads.Problem {
	b.Helper()
	info, ok := workloads.Lookup(name)
	if !ok {
		b.Fatalf("no workload %s", name)
	}
	p, err := info.New(&workloads.Args{})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkTVMHillClimbAB times tvm-hill-climb's search on idealloc/g-1
// three ways in one process: "old" is the full passes of
// refUSMPHillClimb, "new" usmpHillClimb with USMP's conflict lists,
// "spans" usmpHillClimb without them (the path past usmpListPairs); the
// graphs are built once, outside the timing. Peak memory: -benchmem.
func BenchmarkTVMHillClimbAB(b *testing.B) {
	ctx := context.Background()
	p := fieldProblem(b, "idealloc/g-1")
	lists, err := newUSMPGraph(ctx, "tvm-hill-climb", p.Buffers, tvmDefaultAlignment, usmpPools{}, usmpListPairs)
	if err != nil {
		b.Fatal(err)
	}
	spans, err := newUSMPGraph(ctx, "tvm-hill-climb", p.Buffers, tvmDefaultAlignment, usmpPools{}, -1)
	if err != nil {
		b.Fatal(err)
	}
	lb := p.LoadBound()
	for _, v := range []struct {
		name string
		g    *usmpGraph
		run  func(context.Context, *usmpGraph, int64) ([]int64, error)
	}{{"old", lists, refUSMPHillClimb}, {"new", lists, hillClimbOne}, {"spans", spans, hillClimbOne}} {
		g := v.g
		b.Run(v.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := v.run(ctx, g, lb); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// hillClimbOne is usmpHillClimb with one worker.
func hillClimbOne(ctx context.Context, g *usmpGraph, desired int64) ([]int64, error) {
	return usmpHillClimb(ctx, g, desired, 1)
}

// BenchmarkTVMHillClimbY1 times tvm-hill-climb's search on idealloc/y-1
// (past usmpListPairs: no conflict lists) with 1 and 2 workers (passes
// run ahead: usmpSpec; ahead-used/op counts those that were the real
// passes); the graph is built once, outside the timing. Peak memory:
// -benchmem.
func BenchmarkTVMHillClimbY1(b *testing.B) {
	ctx := context.Background()
	p := fieldProblem(b, "idealloc/y-1")
	g, err := newUSMPGraph(ctx, "tvm-hill-climb", p.Buffers, tvmDefaultAlignment, usmpPools{}, usmpListPairs)
	if err != nil {
		b.Fatal(err)
	}
	lb := p.LoadBound()
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprint("workers=", workers), func(b *testing.B) {
			used := 0
			for b.Loop() {
				_, u, err := usmpClimbAhead(ctx, g, lb, workers)
				if err != nil {
					b.Fatal(err)
				}
				used += u
			}
			b.ReportMetric(float64(used)/float64(b.N), "ahead-used/op")
		})
	}
}
