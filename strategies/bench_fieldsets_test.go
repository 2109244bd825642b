package strategies

import (
	"context"
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
// both ways in one process: "old" is the full passes of
// refUSMPHillClimb, "new" usmpHillClimb; the conflict graph is built
// once, outside the timing. Peak memory: -benchmem.
func BenchmarkTVMHillClimbAB(b *testing.B) {
	ctx := context.Background()
	p := fieldProblem(b, "idealloc/g-1")
	g, err := newUSMPGraph(ctx, "tvm-hill-climb", p.Buffers, tvmDefaultAlignment, usmpPools{}, usmpListPairs)
	if err != nil {
		b.Fatal(err)
	}
	lb := p.LoadBound()
	for _, v := range []struct {
		name string
		run  func(context.Context, *usmpGraph, int64) ([]int64, error)
	}{{"old", refUSMPHillClimb}, {"new", usmpHillClimb}} {
		b.Run(v.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := v.run(ctx, g, lb); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
