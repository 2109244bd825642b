package exact

import (
	"context"
	"testing"

	"membench/workloads"
)

// TestChainMerged checks that a buffer followed, alone, by one of its
// size at a boundary where nothing else starts or ends is searched as
// one buffer with it, and that the packing gives the two one offset.
func TestChainMerged(t *testing.T) {
	p := &workloads.Problem{Name: "chain", Buffers: []workloads.Buffer{
		{ID: 0, Size: 3, First: 0, Last: 1},
		{ID: 1, Size: 3, First: 2, Last: 4}, // follows 0 alone
		{ID: 2, Size: 5, First: 0, Last: 2},
		{ID: 3, Size: 2, First: 3, Last: 4}, // 3 and 4 follow 2: no chain
		{ID: 4, Size: 3, First: 3, Last: 4},
		{ID: 5, Size: 2, First: 0, Last: 4},
	}}
	in, err := newInstance(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	pt := &in.parts[0]
	e := newPartFiller(in, pt, false)
	ch, ok := e.(*chained)
	if !ok {
		t.Fatalf("got %T, want a chained filler", e)
	}
	if got := len(ch.filler.in.size); got != 5 {
		t.Fatalf("merged part has %d buffers, want 5", got)
	}
	e.pacer().b = &budget{ctx: context.Background(), nodes: -1}
	if res := e.solve(pt, 10, 1<<40); res != found {
		t.Fatalf("outcome %v, want found", res)
	}
	offs := e.offsets()
	if offs[0] != offs[1] {
		t.Fatalf("offsets %v: buffers 0 and 1 apart", offs)
	}
}
