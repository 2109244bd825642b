package minimalloc

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

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
		if compareSolvers(t, &c, diffNodes) != nil {
			compared++
		}
	}
	if compared < cases*3/4 {
		t.Errorf("only %d of %d cases compared", compared, cases)
	}
	t.Logf("%d of %d cases compared", compared, cases)
}

// diffNodes bounds the old code's search in the differential tests (in
// nodes, so that which cases compare does not depend on the machine's
// load); a case that needs more is left out.
const diffNodes = 20_000

// compareSolvers solves c with the code before the speed work and with
// today's, through the stored and (without gaps) the implicit sweep, each
// with small partitions' orders listed at every level and kept in a tree, and
// fails the test unless offsets, height, nodes and backtracks agree. It
// compares nothing and returns nil when the old code needs more than
// limit search nodes, else it returns the old code's result.
func compareSolvers(t *testing.T, c *goldenCase, limit int64) *result {
	t.Helper()
	bufs, err := parseCSV(c.CSV)
	if err != nil {
		t.Fatal(err)
	}
	p := caseParams(c)
	prob := toProblem(bufs)
	if err := workloads.CheckForms(prob); err != nil {
		t.Fatal(err)
	}
	eff := func(a, b int) (int64, bool) { return workloads.EffectiveSize(prob, a, b) }
	ctx := context.Background()
	want, wantErr := refSolveProblem(ctx, bufs, eff, c.Capacity, &p, limit)
	if want == nil || !want.Complete {
		return nil // too long a search for a test
	}
	gapped := slices.ContainsFunc(bufs, func(b buffer) bool { return len(b.gaps) > 0 })
	for _, tu := range []tuning{{-1, scanLimit, false}, {-1, 0, false}, {1, scanLimit, false}, {1, 0, false}, {1, scanLimit, true}, {1, 0, true}} {
		if tu.implicit > 0 && gapped {
			continue
		}
		got, gotErr := solveTuned(ctx, bufs, eff, c.Capacity, &p, 0, tu)
		name := fmt.Sprintf("%s %+v", c.Name, tu)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("%s: error %v, before %v", name, gotErr, wantErr)
		}
		if !slices.Equal(got.Offsets, want.Offsets) || got.Height != want.Height || got.Nodes != want.Nodes || got.Backtracks != want.Backtracks {
			t.Fatalf("%s: offsets %v height %d nodes %d backtracks %d; before %v %d %d %d\n%s",
				name, got.Offsets, got.Height, got.Nodes, got.Backtracks, want.Offsets, want.Height, want.Nodes, want.Backtracks, c.CSV)
		}
	}
	return want
}

// TestDifferentialHard compares as TestDifferential does on the problems
// the order tree, the node minimums and the chunked undo logs meet at
// scale: up to 1,500 buffers over long timelines (partitions split many
// times, T keys from the sparse table, logs past a chunk), copies of a
// few shapes (ties in the dynamic order's offsets and in the preorder's
// keys up to the index), and tight capacities that make the search
// backtrack, at the defaults and at varied parameters.
func TestDifferentialHard(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 11))
	cases := 48
	if testing.Short() {
		cases = 12
	}
	compared, backtracked := 0, 0
	for k := range cases {
		n := 200 + rng.IntN(400)
		if k%4 == 0 {
			n = 800 + rng.IntN(700)
		}
		c := tiedCase(rng, fmt.Sprintf("h%d", k), n, 1+rng.IntN(6), k%3 == 0)
		switch k % 3 {
		case 0: // loose: one long descent
			c.Capacity *= 2
		case 1: // tight: backtracks
			c.Capacity = c.Capacity * 21 / 20
		}
		if res := compareSolvers(t, &c, diffNodes); res != nil {
			compared++
			if res.Backtracks > 0 {
				backtracked++
			}
		}
	}
	if compared < cases/2 || backtracked == 0 {
		t.Errorf("only %d of %d cases compared, %d backtracked", compared, cases, backtracked)
	}
	t.Logf("%d of %d cases compared, %d backtracked", compared, cases, backtracked)
}

// tiedCase draws n buffers copied from a few shapes (lifetime and size)
// each moved in time by a few steps, over a timeline about n/4 long, with
// capacity the peak of live bytes; vary varies the parameters as
// randomCase does (minimise mode stays off: a tight one takes long).
func tiedCase(rng *rand.Rand, name string, n, shapes int, vary bool) goldenCase {
	T := max(n/4, 8)
	type shape struct{ len, size int64 }
	sh := make([]shape, shapes)
	for k := range sh {
		sh[k] = shape{1 + int64(rng.IntN(T/4+1)), []int64{1, 2, 4, 8, 16, 24}[rng.IntN(6)]}
	}
	live := make([]int64, T+40)
	var sb strings.Builder
	sb.WriteString("id,lower,upper,size\n")
	for i := range n {
		s := sh[rng.IntN(shapes)]
		lo := int64(rng.IntN(T))
		if rng.IntN(2) == 0 {
			lo -= lo % 8 // many share a start
		}
		for t := lo; t < lo+s.len && int(t) < len(live); t++ {
			live[t] += s.size
		}
		fmt.Fprintf(&sb, "%d,%d,%d,%d\n", i, lo, lo+s.len, s.size)
	}
	var peak int64
	for _, v := range live {
		peak = max(peak, v)
	}
	c := goldenCase{Name: name, CSV: sb.String(), Capacity: peak, Params: "1111111110", Heuristics: "WAT,TAW,TWA"}
	if vary {
		varyParams(rng, &c)
	}
	return c
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

// TestMaxTree adds to random ranges and reads random ranges' largest
// values and the places of those at least a value, and requires what a
// plain slice gives.
func TestMaxTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 5, 64, 100, 1000} {
		v := make([]int64, n)
		for k := range v {
			v[k] = rng.Int64N(1000)
		}
		tr := newMaxTree(v)
		for step := range 2000 {
			l := rng.IntN(n)
			r := l + 1 + rng.IntN(n-l)
			if step%2 == 0 {
				d := rng.Int64N(200) - 100
				tr.addRange(l, r, d)
				for k := l; k < r; k++ {
					v[k] += d
				}
				continue
			}
			if got, want := tr.max(l, r), slices.Max(v[l:r]); got != want {
				t.Fatalf("n %d step %d: max [%d, %d) = %d, want %d", n, step, l, r, got, want)
			}
			m := v[l+rng.IntN(r-l)]
			var got, want []int
			tr.eachAtLeast(l, r, m, func(k int) { got = append(got, k) })
			for k := l; k < r; k++ {
				if v[k] >= m {
					want = append(want, k)
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("n %d step %d: at least %d in [%d, %d): %v, want %v", n, step, m, l, r, got, want)
			}
		}
	}
}

// TestSweepForced requires sweep's implicit argument to decide: 1 an
// implicit result for a small problem without gaps (the differential
// tests reach the implicit search through it), -1 a stored one, 1 on a
// problem with gaps a stored one still.
func TestSweepForced(t *testing.T) {
	plain, err := parseCSV("id,lower,upper,size\n0,0,3,4\n1,1,5,2\n2,4,6,8\n")
	if err != nil {
		t.Fatal(err)
	}
	gapped, err := parseCSV("id,lower,upper,size,gaps\n0,0,6,4,2-4\n1,1,5,2,\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		bufs     []buffer
		implicit int
		want     bool
	}{{plain, 1, true}, {plain, 0, false}, {plain, -1, false}, {gapped, 1, false}} {
		prob := toProblem(c.bufs)
		eff := func(a, b int) (int64, bool) { return workloads.EffectiveSize(prob, a, b) }
		sw, err := sweep(c.bufs, eff, func() error { return nil }, c.implicit)
		if err != nil {
			t.Fatal(err)
		}
		if got := sw.ix != nil; got != c.want {
			t.Errorf("%d buffers, implicit %d: implicit result %v, want %v", len(c.bufs), c.implicit, got, c.want)
		}
	}
}

// TestPreorderRuns requires preorder, which orders by the keys before a
// heuristic's first T once and then sorts only the runs that tie there,
// to give the order of one sort by every key and the index, whether the
// buffers come shuffled or already in order of those first keys (as
// decompose hands them over), on buffers copied from a few shapes (many
// ties) and for heuristics with T first, last, in the middle and absent.
func TestPreorderRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 13))
	for k := range 40 {
		c := tiedCase(rng, fmt.Sprintf("p%d", k), 50+rng.IntN(250), 1+rng.IntN(4), false)
		bufs, err := parseCSV(c.CSV)
		if err != nil {
			t.Fatal(err)
		}
		prob := toProblem(bufs)
		eff := func(a, b int) (int64, bool) { return workloads.EffectiveSize(prob, a, b) }
		sw, err := sweep(bufs, eff, func() error { return nil }, -1+2*(k%2))
		if err != nil {
			t.Fatal(err)
		}
		p := defaultParams()
		p.Heuristics = []string{"WAT"}
		s := newSolver(&p, &run{ctx: context.Background()}, bufs, c.Capacity*4, sw, tuning{scanMax: scanLimit})
		if _, _, st := s.solveOnce(); st != stOK {
			t.Fatalf("%s: status %d", c.Name, st)
		}
		for _, h := range []string{"WAT", "TAW", "TWA", "ZLT", "CLOU", "T", "UZ", "OTC"} {
			want := make([]int32, 0, len(bufs))
			for i := range bufs {
				if rng.IntN(3) > 0 {
					want = append(want, int32(i))
				}
			}
			keys := make([]preorderData, len(bufs))
			for i := range keys {
				keys[i] = s.staticKeys(i)
				for _, sp := range sw.data[i].spans {
					for q := sp.lo; q < sp.hi; q++ {
						keys[i].total = max(keys[i].total, s.total[q])
					}
				}
			}
			slices.SortFunc(want, func(a, b int32) int { return preorderCmp(h, &keys[a], &keys[b], nil) })
			for _, shuffled := range []bool{true, false} {
				got := slices.Clone(want)
				if shuffled {
					rng.Shuffle(len(got), func(a, b int) { got[a], got[b] = got[b], got[a] })
				} else if r, _ := s.staticRank(h); r != nil {
					// In order of the keys before T, ties shuffled.
					rng.Shuffle(len(got), func(a, b int) { got[a], got[b] = got[b], got[a] })
					slices.SortStableFunc(got, func(a, b int32) int { return cmp.Compare(r[a], r[b]) })
				}
				s.preorder(&partition{bufs: got}, h)
				if !slices.Equal(got, want) {
					t.Fatalf("%s %s shuffled %v: preorder %v, want %v", c.Name, h, shuffled, got, want)
				}
			}
		}
	}
}

// TestOrderTreeSucc requires the order tree, whose nodes hold no
// position, to return the least key (offset, position) at or after
// (a, b), as a scan of its leaves does, and its root's least top, over
// random leaves with many tied offsets and absent ones, through
// updates that raise, place and restore leaves.
func TestOrderTreeSucc(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 17))
	for _, n := range []int{1, 2, 3, 7, 64, 100, 1000} {
		tr := &orderTree{size: 1}
		for tr.size < n {
			tr.size *= 2
		}
		tr.n = make([]treeNode, 2*tr.size)
		off, top := make([]int64, tr.size), make([]int64, tr.size)
		set := func(k int) {
			tr.n[tr.size+k] = treeNode{off[k], top[k]}
		}
		for k := range tr.size {
			off[k], top[k] = absent, absent
			if k < n && rng.IntN(5) > 0 {
				off[k] = int64(rng.IntN(8))
				top[k] = off[k] + 1 + int64(rng.IntN(8))
			}
			set(k)
		}
		for v := tr.size - 1; v >= 1; v-- {
			tr.pull(v)
		}
		for step := range 3000 {
			if step%3 == 0 { // change a leaf, update its path
				k := rng.IntN(n)
				switch rng.IntN(3) {
				case 0:
					off[k], top[k] = absent, absent
				default:
					off[k] = int64(rng.IntN(8))
					top[k] = off[k] + 1 + int64(rng.IntN(8))
				}
				set(k)
				for v := (tr.size + k) / 2; v >= 1 && tr.pull(v); v /= 2 {
				}
				continue
			}
			a, b := int64(rng.IntN(10)-1), int32(rng.IntN(n+1))
			wo, wp, wt := int64(absent), int32(0), int64(absent)
			for k := n - 1; k >= 0; k-- {
				if off[k] != absent {
					wt = min(wt, top[k])
				}
				if off[k] != absent && (off[k] > a || off[k] == a && int32(k) >= b) && off[k] <= wo {
					wo, wp = off[k], int32(k)
				}
			}
			if o, p := tr.succ(a, b); o != wo || o != absent && p != wp {
				t.Fatalf("n %d step %d: succ(%d, %d) = (%d, %d), want (%d, %d)", n, step, a, b, o, p, wo, wp)
			}
			if tr.n[1].top != wt {
				t.Fatalf("n %d step %d: least top %d, want %d", n, step, tr.n[1].top, wt)
			}
		}
	}
}
