package minimalloc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"membench/workloads"
)

// TestDifferential solves random problems (dense and sparse, with and
// without alignment, gaps and fixed offsets, at varied parameters, in
// capacity and minimise mode) with the code before the speed work
// (ref_test.go) and with today's, through every representation (stored
// and implicit sweeps; orders kept or recomputed), and requires the same
// outcome: offsets, height, nodes and backtracks.
func TestDifferential(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 7))
	cases := 300
	if testing.Short() {
		cases = 60
	}
	compared := 0
	for k := range cases {
		n := 1 + rng.IntN(12)
		switch k % 4 {
		case 1:
			n = 20 + rng.IntN(60)
		case 3:
			n = 100 + rng.IntN(200)
		}
		c := randomCase(rng, fmt.Sprintf("d%d", k), n, k%3 == 0)
		if k%4 == 3 {
			// Sparse and loose: long first descents, few backtracks.
			c.Capacity *= 2 + int64(rng.IntN(2))
		}
		bufs, err := parseCSV(c.CSV)
		if err != nil {
			t.Fatal(err)
		}
		p := caseParams(&c)
		prob := toProblem(bufs)
		if err := workloads.CheckForms(prob); err != nil {
			t.Fatal(err)
		}
		eff := func(a, b int) (int64, bool) { return workloads.EffectiveSize(prob, a, b) }
		ctx := context.Background()
		want, wantErr := refSolveProblem(ctx, bufs, eff, c.Capacity, &p, time.Second)
		if want == nil || !want.Complete {
			continue // too long a search for a test
		}
		compared++
		gapped := slices.ContainsFunc(bufs, func(b buffer) bool { return len(b.gaps) > 0 })
		for _, tu := range []int{-1, 1} {
			if tu > 0 && gapped {
				continue
			}
			got, gotErr := solveTuned(ctx, bufs, eff, c.Capacity, &p, 0, tu)
			name := fmt.Sprintf("%s implicit=%d", c.Name, tu)
			if (wantErr == nil) != (gotErr == nil) {
				t.Fatalf("%s: error %v, before %v", name, gotErr, wantErr)
			}
			if !slices.Equal(got.Offsets, want.Offsets) || got.Height != want.Height || got.Nodes != want.Nodes || got.Backtracks != want.Backtracks {
				t.Fatalf("%s: offsets %v height %d nodes %d backtracks %d; before %v %d %d %d\n%s",
					name, got.Offsets, got.Height, got.Nodes, got.Backtracks, want.Offsets, want.Height, want.Nodes, want.Backtracks, c.CSV)
			}
		}
	}
	if compared < cases*3/4 {
		t.Errorf("only %d of %d cases compared", compared, cases)
	}
	t.Logf("%d of %d cases compared", compared, cases)
}

// TestUndoLog pushes and pops across chunk boundaries, as a long descent
// and its backtracks do, and requires the entries back in reverse.
func TestUndoLog(t *testing.T) {
	var l undoLog[int32]
	var want []int32
	rng := rand.New(rand.NewPCG(1, 2))
	for step := range 40 {
		if step%3 == 2 {
			for k := rng.IntN(len(want) + 1); k > 0; k-- {
				if got := l.pop(); got != want[len(want)-1] {
					t.Fatalf("step %d: popped %d, want %d", step, got, want[len(want)-1])
				}
				want = want[:len(want)-1]
			}
		} else {
			for k := rng.IntN(3 * undoChunk); k > 0; k-- {
				v := rng.Int32()
				l.push(v)
				want = append(want, v)
			}
		}
		if l.len() != len(want) {
			t.Fatalf("step %d: len %d, want %d", step, l.len(), len(want))
		}
		if last := l.last(); (last == nil) != (len(want) == 0) || last != nil && *last != want[len(want)-1] {
			t.Fatalf("step %d: last entry wrong", step)
		}
	}
	for len(want) > 0 {
		if got := l.pop(); got != want[len(want)-1] {
			t.Fatalf("popped %d, want %d", got, want[len(want)-1])
		}
		want = want[:len(want)-1]
	}
}
