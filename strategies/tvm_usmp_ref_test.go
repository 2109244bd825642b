package strategies

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

// refUSMPHillClimb is usmpHillClimb as it stood before the incremental
// passes (every buffer re-placed against its sorted conflicts, the
// second-level candidates sorted): the reference the differential test
// compares against. It is HillClimbAllocator::PlanMemory; desired is its
// memory_pressure (over all pools). A pass places each buffer in its pool
// (USMP's greedy in hill_climb.cc): the conflicts placed before it in the
// same pool are walked by offset, and one where the buffer would pass the
// pool's size hint drops the pool for good; a buffer so left without a
// pool "could not fit" and sits nowhere (offset 0, in no pool's size). A
// pass's total is the sum of its pools' sizes. A pass where something
// could not fit is accepted only as the first (and then leaves the total
// unset, so the next is a first too); the others as with one pool. The
// buffers reaching the top are those reaching their own pool's size.
// Where the result keeps a buffer in no pool, that is USMP's error.
func refUSMPHillClimb(ctx context.Context, g *usmpGraph, desired int64) ([]int64, error) {
	n := len(g.size)
	if n == 0 {
		return []int64{}, nil
	}
	order := usmpOrder(g.size, g.name, g.degrees(), false)
	pos := make([]int32, n)
	for q, i := range order {
		pos[i] = int32(q)
	}
	var rnd randR
	dirty := int32(0) // see below
	swap := func(i1, i2 int32) {
		if i1 == i2 {
			return
		}
		b1, b2 := order[i1], order[i2]
		order[i1], order[i2] = b2, b1
		pos[b1], pos[b2] = i2, i1
		dirty = min(dirty, i1, i2)
	}
	// A pass's allocations: offsets, and the buffers left in no pool.
	type alloc struct {
		off   []int64
		nope  []bool
		unfit bool
	}
	// One unbounded pool: every placed conflict counts.
	plain := g.pools.of == nil && g.pools.hint == nil
	high := func(a alloc) []int64 { return g.poolSizes(a.off, a.nope) } // each pool's size, -1 for a pool no buffer is in
	increase := errors.New("tvm-hill-climb: TVM USMP Error: Please increase the size_hints for memory pools")

	// A pass at a position depends only on the order up to it, so each
	// pass starts from the lowest position swapped since the last one and
	// copies the allocations below it.
	var last alloc
	var conf []int32

	var totalSize int64
	swapI1, swapI2 := int32(-1), int32(-1)
	var pool, rollback, result alloc
	var first, second []int32
	for attempts := 0; attempts < usmpMaxAttempts; attempts++ {
		rollback = pool
		cur := alloc{off: make([]int64, n), nope: make([]bool, n)}
		off := cur.off // the sort's comparator reads it directly
		if last.off != nil {
			for _, i := range order[:dirty] {
				cur.off[i], cur.nope[i] = last.off[i], last.nope[i]
				cur.unfit = cur.unfit || last.nope[i]
			}
		}
		work := 0
		for q := int(dirty); q < n; q++ {
			// Poll ctx by work done: a buffer can conflict with all others.
			if work += len(conf) + 1; work >= kernel.CtxCheckEvery*64 || q == int(dirty) {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				work = 0
			}
			i := order[q]
			m := g.pools.poolOf(i)
			// Only the conflicts in the buffer's own pool count; the
			// order by offset among them is the same.
			conf = conf[:0]
			for _, j := range g.conflicts(i) {
				if pos[j] < int32(q) && (plain || !cur.nope[j] && g.pools.poolOf(j) == m) {
					conf = append(conf, j)
				}
			}
			slices.SortFunc(conf, func(a, b int32) int {
				if c := cmp.Compare(off[a], off[b]); c != 0 {
					return c
				}
				return cmp.Compare(pos[a], pos[b])
			})
			var cand int64
			if plain {
				for _, j := range conf {
					if next := AlignUp(cur.off[j]+g.size[j], g.align); next > cand && cand+g.size[i] > cur.off[j] {
						cand = next
					}
				}
				cur.off[i] = cand
				continue
			}
			in := g.pools.fits(m, 0, g.size[i])
			for _, j := range conf {
				if !in {
					break
				}
				next := AlignUp(cur.off[j]+g.size[j], g.align)
				if !g.pools.fits(m, next, g.size[i]) {
					in = false
				} else if next > cand && cand+g.size[i] > cur.off[j] {
					cand = next
				}
			}
			if !in {
				cand = 0
				cur.unfit = true
			}
			cur.off[i], cur.nope[i] = cand, !in
		}
		last, dirty = cur, int32(n)
		pool = cur

		poolSize := high(pool)
		var total int64
		some := false
		for _, h := range poolSize {
			if h >= 0 {
				total, some = total+h, true
			}
		}
		if !some {
			return nil, increase
		}
		accept := totalSize == 0
		if !accept && !pool.unfit {
			accept = totalSize > total
			if !accept {
				// size_t arithmetic, as in TVM.
				accept = int64(rnd.next()%100) < int64(int32(50*uint64(total-totalSize)/uint64(total)/uint64(attempts)))
			}
		}
		if accept {
			result = pool
			if !pool.unfit {
				totalSize = total
				if totalSize <= desired {
					break
				}
			}
		} else {
			swap(swapI2, swapI1)
			pool = rollback
			poolSize = high(pool)
		}

		// The buffers reaching their pool's top, by position; one at
		// random.
		var top []int32
		for q, i := range order {
			if !pool.nope[i] && pool.off[i]+g.size[i] == poolSize[g.pools.poolOf(i)] {
				top = append(top, int32(q))
			}
		}
		if len(top) == 0 {
			return nil, increase
		}
		node := order[top[int(rnd.next())%len(top)]]

		first, second = first[:0], second[:0]
		for _, c1 := range g.conflicts(node) {
			if pos[node] > pos[c1] {
				first = append(first, c1)
			}
			for _, c2 := range g.conflicts(c1) {
				if pos[c1] > pos[c2] {
					second = append(second, c2)
				}
			}
		}
		byPos := func(a, b int32) int { return cmp.Compare(pos[a], pos[b]) }
		slices.SortFunc(first, byPos)
		slices.SortFunc(second, byPos)
		if len(first) == 0 {
			continue
		}
		buf1 := first[int(rnd.next())%len(first)]
		buf2 := buf1
		stuck := !slices.ContainsFunc(first, func(b int32) bool { return b != buf1 }) &&
			!slices.ContainsFunc(second, func(b int32) bool { return b != buf1 })
		for buf2 == buf1 {
			if len(second) > 0 && rnd.next()%100 > 25 {
				buf2 = second[int(rnd.next())%len(second)]
			} else {
				buf2 = first[int(rnd.next())%len(first)]
			}
			if len(second) < 2 && len(first) < 2 || stuck {
				break
			}
		}
		if buf1 == buf2 {
			continue
		}
		swapI1, swapI2 = pos[buf1], pos[buf2]
		swap(swapI1, swapI2)
	}
	for i, nope := range result.nope {
		if nope {
			return nil, g.pools.exceeded("tvm-hill-climb", int32(i), g.size[i])
		}
	}
	return result.off, nil
}

// tvmRandomIntervals returns n buffers with random lifetimes over the
// given number of tasks (few tasks: dense conflicts) and sizes, a fiftieth
// of them empty.
func tvmRandomIntervals(rng *rand.Rand, n, tasks int, maxSize int64) []workloads.Buffer {
	bufs := make([]workloads.Buffer, n)
	for i := range bufs {
		f := rng.IntN(tasks)
		l := f + rng.IntN(tasks-f)
		size := 1 + rng.Int64N(maxSize)
		if rng.IntN(50) == 0 {
			size = 0
		}
		bufs[i] = workloads.Buffer{ID: i, First: f, Last: l, Size: size}
	}
	return bufs
}

// TestTVMHillClimbMatchesReference checks the incremental hill climb
// against refUSMPHillClimb, the full passes it replaced: the same offsets
// (or the same error) on sparse and dense problems, with and without
// alignment, pools and size hints tight enough to leave buffers
// unplaced, memory pressures that stop the search early, and on lists
// that are not symmetric, name a buffer itself or twice (as TVM's own
// tests build them).
func TestTVMHillClimbMatchesReference(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(20, 5))
	for trial := range 160 {
		var bufs []workloads.Buffer
		switch trial % 4 {
		case 0:
			bufs = gbsRandomCase(rng, trial)
			bufs = bufs[:min(len(bufs), 80)]
		case 1: // dense: few tasks
			bufs = tvmRandomIntervals(rng, 1+rng.IntN(60), 1+rng.IntN(6), 1+rng.Int64N(1000))
		case 2: // sparse
			bufs = tvmRandomIntervals(rng, 1+rng.IntN(120), 20+rng.IntN(200), 1+rng.Int64N(1<<20))
		case 3: // few sizes: ties
			bufs = tvmRandomIntervals(rng, 1+rng.IntN(80), 1+rng.IntN(30), 3)
		}
		align := []int64{1, 16, 24}[trial%3]
		var pools usmpPools
		if trial%5 >= 3 {
			np := 1 + rng.IntN(3)
			pools = usmpPools{of: make([]int, len(bufs)), hint: make([]int64, np), names: make([]string, np)}
			for i := range bufs {
				pools.of[i] = rng.IntN(np)
			}
			var sum int64
			for _, b := range bufs {
				sum += b.Size
			}
			for m := range np {
				pools.names[m] = fmt.Sprint("pool", m)
				if rng.IntN(3) > 0 { // a hint, sometimes too small
					pools.hint[m] = 1 + rng.Int64N(sum/int64(np)+1)
				}
			}
		}
		g, err := newUSMPGraph(ctx, "test", bufs, align, pools, usmpListPairs)
		if err != nil {
			t.Fatal(err)
		}
		desired := []int64{0, workloads.LoadBound(bufs)}[trial%2]
		compareHillClimb(t, fmt.Sprint("trial ", trial), g, desired)
		// The same graph without its lists (usmpListPairs exceeded).
		spans, err := newUSMPGraph(ctx, "test", bufs, align, pools, -1)
		if err != nil {
			t.Fatal(err)
		}
		if spans.lists() && len(bufs) > 1 {
			t.Fatalf("trial %d: lists kept past maxPairs", trial)
		}
		compareHillClimbWith(t, fmt.Sprint("trial ", trial, " without lists"), g, spans, desired)
	}
	for trial := range 60 {
		n := 1 + rng.IntN(40)
		g := &usmpGraph{align: []int64{1, 8}[trial%2], start: []int32{0}}
		for i := range n {
			g.size = append(g.size, rng.Int64N(100))
			g.name = append(g.name, fmt.Sprint(rng.IntN(n)))
			for range rng.IntN(n) {
				g.nbr = append(g.nbr, int32(rng.IntN(n)))
			}
			if rng.IntN(4) == 0 {
				g.nbr = append(g.nbr, int32(i))
			}
			g.start = append(g.start, int32(len(g.nbr)))
		}
		compareHillClimb(t, fmt.Sprint("lists ", trial), g, 0)
	}
}

func compareHillClimb(t *testing.T, what string, g *usmpGraph, desired int64) {
	t.Helper()
	compareHillClimbWith(t, what, g, g, desired)
}

// compareHillClimbWith compares usmpHillClimb on g with refUSMPHillClimb
// on ref, the same problem with its lists, with 1, 2 and 3 workers
// (passes run ahead: usmpSpec).
func compareHillClimbWith(t *testing.T, what string, ref, g *usmpGraph, desired int64) {
	t.Helper()
	ctx := context.Background()
	want, wantErr := refUSMPHillClimb(ctx, ref, desired)
	for workers := 1; workers <= 3; workers++ {
		got, err := usmpHillClimb(ctx, g, desired, workers)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("%s, %d workers: error %v, want %v", what, workers, err, wantErr)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s, %d workers: %v, want %v", what, workers, got, want)
		}
	}
}

// TestTVMHillClimbPathsAgree plans random problems through tvmHillClimb
// with USMP's conflict lists and without them (maxPairs 0: the swaps'
// candidates and a pass's changes from the lifetimes), and requires the
// same offsets, or the same error: dense and sparse lifetimes, sizes with
// ties, alignments, and memory spaces with capacities.
func TestTVMHillClimbPathsAgree(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(20, 26))
	for trial := range 60 {
		bufs := tvmRandomMix(rng, trial, 30, 150)
		p := &workloads.Problem{Name: "random", Alignment: []int64{1, 8}[trial%2], Buffers: bufs}
		if trial%4 == 3 {
			p.Memories = []workloads.Memory{{Name: "a"}, {Name: "b", Capacity: workloads.LoadBound(bufs)/2 + rng.Int64N(workloads.LoadBound(bufs)+1)}}
			p.Spaces = make([]int, len(bufs))
			for i := range bufs {
				p.Spaces[i] = rng.IntN(2)
			}
		}
		plan := func(maxPairs int64) ([]int64, error) {
			pl, err := tvmHillClimb{align: 16, maxPairs: maxPairs}.Plan(ctx, p)
			if err != nil {
				return nil, err
			}
			return pl.Offsets, nil
		}
		want, wantErr := plan(math.MaxInt64)
		got, err := plan(0)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("trial %d: error %v, want %v", trial, err, wantErr)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: offsets without lists differ:\n%v\nwant\n%v", trial, got, want)
		}
	}
}

// TestTVMHillClimbStopsMatchReference compares usmpHillClimb without
// lists (the path idealloc's instances take: touches spread over time,
// passes that stop once they reach the last accepted total) with
// refUSMPHillClimb on problems big enough that most of the 500 attempts
// are rejected: dense and sparse lifetimes, ties, alignments 1, 16 and
// 24, one pool and several unbounded ones, exact offsets.
func TestTVMHillClimbStopsMatchReference(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(20, 77))
	for trial := range 12 {
		bufs := tvmRandomMix(rng, trial, 60, 90)
		align := []int64{1, 16, 24}[trial%3]
		var pools usmpPools
		if trial%4 == 3 {
			pools = usmpPools{of: make([]int, len(bufs)), hint: make([]int64, 2), names: []string{"a", "b"}}
			for i := range bufs {
				pools.of[i] = rng.IntN(2)
			}
		}
		ref, err := newUSMPGraph(ctx, "test", bufs, align, pools, usmpListPairs)
		if err != nil {
			t.Fatal(err)
		}
		spans, err := newUSMPGraph(ctx, "test", bufs, align, pools, -1)
		if err != nil {
			t.Fatal(err)
		}
		compareHillClimbWith(t, fmt.Sprint("trial ", trial), ref, spans, 0)
		compareHillClimb(t, fmt.Sprint("trial ", trial, " with lists"), ref, 0)
	}
}

// tvmRandomMix returns random buffers of the kind trial%3 picks: dense
// (few tasks), sparse (many tasks, sizes up to 1 MiB) or ties (sizes
// 1 to 4); n0 to n0+nd of them (100 more when sparse).
func tvmRandomMix(rng *rand.Rand, trial, n0, nd int) []workloads.Buffer {
	switch trial % 3 {
	case 0:
		return tvmRandomIntervals(rng, n0+rng.IntN(nd), 2+rng.IntN(10), 1+rng.Int64N(1000))
	case 1:
		return tvmRandomIntervals(rng, n0+rng.IntN(nd+100), 50+rng.IntN(400), 1+rng.Int64N(1<<20))
	default:
		return tvmRandomIntervals(rng, n0+rng.IntN(nd), 5+rng.IntN(40), 4)
	}
}

// TestTVMHillClimbWorkers plans problems where most attempts are
// rejected with 1 to 4 workers: the same offsets as refUSMPHillClimb for
// each, and some passes run ahead (usmpSpec: on another lane, or in
// lockstep on the same one) are the real ones, so that the comparison
// covers them.
func TestTVMHillClimbWorkers(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(20, 91))
	for trial := range 6 {
		bufs := tvmRandomMix(rng, trial, 60, 90)
		lists, err := newUSMPGraph(ctx, "test", bufs, 16, usmpPools{}, usmpListPairs)
		if err != nil {
			t.Fatal(err)
		}
		want, err := refUSMPHillClimb(ctx, lists, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, maxPairs := range []int64{usmpListPairs, -1} {
			g, err := newUSMPGraph(ctx, "test", bufs, 16, usmpPools{}, maxPairs)
			if err != nil {
				t.Fatal(err)
			}
			for workers := 1; workers <= 4; workers++ {
				got, used, err := usmpClimbAhead(ctx, g, 0, workers)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("trial %d, maxPairs %d, %d workers: %v, want %v", trial, maxPairs, workers, got, want)
				}
				if used == 0 {
					t.Errorf("trial %d, maxPairs %d, %d workers: %d passes run ahead used", trial, maxPairs, workers, used)
				}
			}
		}
	}
}

// TestTVMHillClimbWorkersParam checks the workers parameter: any count
// gives the same plan, and a negative one is refused.
func TestTVMHillClimbWorkersParam(t *testing.T) {
	p := &workloads.Problem{Name: "random", Alignment: 1, Buffers: tvmRandomIntervals(rand.New(rand.NewPCG(3, 4)), 80, 12, 500)}
	want := mustPlan(t, "tvm-hill-climb?workers=1", p).Offsets
	for _, spec := range []string{"tvm-hill-climb", "tvm-hill-climb?workers=2", "tvm-hill-climb?workers=7"} {
		if got := mustPlan(t, spec, p).Offsets; !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", spec, got, want)
		}
	}
	_, err := Lookup("tvm-hill-climb?workers=-1")
	if err == nil || err.Error() != "tvm-hill-climb: parameter workers=-1: want 0 or more" {
		t.Errorf("workers=-1: error %v", err)
	}
}
