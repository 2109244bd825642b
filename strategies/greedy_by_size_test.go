package strategies

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"membench/workloads"
	"membench/workloads/synthetic"
)

// gbsRefGreedyBySize is the plain form of TFLite's rules, one dist vector per
// record and a full scan per pick, against which the fast version is held.
func gbsRefGreedyBySize(bufs []workloads.Buffer) ([]int, []int64) {
	pm := gbsRefPositionalMaximums(bufs)
	n := len(bufs)
	type info struct {
		pos      int
		dist     []int64
		best     int64
		bestObj  int
		assigned bool
	}
	gbsRecs := make([]info, n)
	for i, b := range bufs {
		k := 0
		for k < len(pm) && pm[k] >= b.Size {
			k++
		}
		gbsRecs[i] = info{pos: k - 1, best: gbsNoDist, bestObj: -1}
	}
	higher := func(a, b int) bool { // TFLite's operator>
		ra, rb := &gbsRecs[a], &gbsRecs[b]
		if ra.pos != rb.pos {
			return ra.pos < rb.pos
		}
		if ra.best != rb.best {
			return ra.best < rb.best
		}
		return bufs[a].Size > bufs[b].Size
	}
	ids := make([]int, n)
	var sizes []int64
	for range n {
		b := -1
		for i := range n {
			if !gbsRecs[i].assigned && (b < 0 || higher(i, b)) {
				b = i
			}
		}
		o, newObj := gbsRecs[b].bestObj, gbsRecs[b].best == gbsNoDist
		if newObj {
			o = len(sizes)
			sizes = append(sizes, bufs[b].Size)
		} else {
			sizes[o] = max(sizes[o], bufs[b].Size)
		}
		ids[b], gbsRecs[b].assigned = o, true
		for i := range n {
			r := &gbsRecs[i]
			if r.assigned || (!newObj && r.dist[o] == gbsNoDist) {
				continue
			}
			d := int64(gbsNoDist)
			if bufs[i].Last < bufs[b].First {
				d = int64(bufs[b].First - bufs[i].Last)
			} else if bufs[b].Last < bufs[i].First {
				d = int64(bufs[i].First - bufs[b].Last)
			}
			switch {
			case newObj:
				r.dist = append(r.dist, d)
			case d == gbsNoDist:
				r.dist[o] = gbsNoDist
				if r.bestObj == o {
					r.best = gbsNoDist
					for k, dk := range r.dist {
						if dk < r.best {
							r.best, r.bestObj = dk, k
						}
					}
				}
			default:
				r.dist[o] = min(r.dist[o], d)
			}
			if d < r.best {
				r.best, r.bestObj = d, o
			}
		}
	}
	return ids, sizes
}

// gbsRefPositionalMaximums computes the positional maximums from the task
// profiles, as TFLite does.
func gbsRefPositionalMaximums(bufs []workloads.Buffer) []int64 {
	var pm []int64
	for _, prof := range TaskProfiles(bufs) {
		for k, i := range prof {
			if k == len(pm) {
				pm = append(pm, bufs[i].Size)
			} else {
				pm[k] = max(pm[k], bufs[i].Size)
			}
		}
	}
	return pm
}

// gbsRandomCase returns a random DAG-shaped problem for the exactness
// check, varied to stress ties: few distinct sizes, several tensors per op,
// many long-lived tensors, sizes up to 2^50, zero sizes, shuffled order.
func gbsRandomCase(rng *rand.Rand, trial int) []workloads.Buffer {
	cfg := synthetic.DefaultDAG(1+rng.IntN(200), int64(trial))
	cfg.Outputs = 1 + trial%3
	switch trial % 3 {
	case 0:
		cfg.K = 1 + rng.IntN(4)
	case 1:
		cfg.K = 5 + rng.IntN(20)
	}
	if trial%5 == 4 {
		cfg.LongPerMille = 100
	}
	if trial%10 == 9 {
		cfg.MaxSize = 1 << 50
	}
	bufs := synthetic.RandomDAG(cfg).Buffers
	for i := range bufs {
		if rng.IntN(50) == 0 {
			bufs[i].Size = 0
		}
	}
	if trial%4 == 3 {
		rng.Shuffle(len(bufs), func(i, j int) { bufs[i], bufs[j] = bufs[j], bufs[i] })
		for i := range bufs {
			bufs[i].ID = i
		}
	}
	return bufs
}

func TestGreedyBySizeMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 11))
	for trial := range 300 {
		gbsCheckReference(t, trial, gbsRandomCase(rng, trial))
	}
}

// gbsCheckReference fails t unless greedy-by-size and the reference give
// bufs the same objects, with gbsGaps kept from the start, from a random
// number of objects on, and from the default on.
func gbsCheckReference(t *testing.T, trial int, bufs []workloads.Buffer) {
	t.Helper()
	wantIDs, wantSizes := gbsRefGreedyBySize(bufs)
	for _, from := range []int{0, trial % 20, gbsGapsFrom} {
		ids, sizes, err := greedyBySizeRun(context.Background(), bufs, from)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if !slices.Equal(ids, wantIDs) || !slices.Equal(sizes, wantSizes) {
			t.Fatalf("trial %d, gaps from %d objects: got ids %v sizes %v, want ids %v sizes %v\nbuffers %v",
				trial, from, ids, sizes, wantIDs, wantSizes, bufs)
		}
	}
}

func gbsRecs(rs ...[3]int64) []workloads.Buffer {
	bufs := make([]workloads.Buffer, len(rs))
	for i, r := range rs {
		bufs[i] = workloads.Buffer{ID: i, Size: r[0], First: int(r[1]), Last: int(r[2])}
	}
	return bufs
}

func TestGreedyBySizeHandCases(t *testing.T) {
	tests := []struct {
		name      string
		bufs      []workloads.Buffer
		wantIDs   []int
		wantSizes []int64
	}{
		{name: "empty", wantIDs: []int{}, wantSizes: []int64{}},
		{name: "one", bufs: gbsRecs([3]int64{16, 0, 1}), wantIDs: []int{0}, wantSizes: []int64{16}},
		{
			// Upstream Model.ComplexRecords.
			name: "complex",
			bufs: gbsRecs([3]int64{32, 0, 1}, [3]int64{32, 1, 4}, [3]int64{8, 2, 5}, [3]int64{16, 3, 5},
				[3]int64{8, 4, 5}, [3]int64{64, 5, 7}, [3]int64{8, 6, 8}, [3]int64{8, 7, 8}, [3]int64{16, 8, 9}),
			wantIDs:   []int{1, 0, 2, 1, 3, 0, 1, 2, 0},
			wantSizes: []int64{64, 32, 8, 8},
		},
		{
			// pm = [100 90 50]. X (3) is 6 from A in object 0, then 2 from
			// B when B opens object 1; C later joins object 0 also 2 from
			// X. The tie keeps object 1, though object 0 has the lower id
			// and is larger.
			name: "distance tie keeps earlier best",
			bufs: gbsRecs([3]int64{100, 0, 3}, [3]int64{90, 3, 7}, [3]int64{50, 5, 7}, [3]int64{40, 9, 9},
				[3]int64{100, 30, 30}, [3]int64{90, 30, 30}, [3]int64{50, 30, 30}),
			wantIDs:   []int{0, 1, 0, 1, 0, 1, 2},
			wantSizes: []int64{100, 90, 50},
		},
		{
			// Equal priority everywhere: the lowest index opens object 0;
			// the others are then equally near it and join in turn.
			name:      "full ties by index",
			bufs:      gbsRecs([3]int64{8, 2, 2}, [3]int64{8, 0, 0}, [3]int64{8, 4, 4}),
			wantIDs:   []int{0, 0, 0},
			wantSizes: []int64{8},
		},
		{
			name:      "zero sizes",
			bufs:      gbsRecs([3]int64{0, 0, 5}, [3]int64{16, 1, 2}, [3]int64{0, 3, 4}, [3]int64{16, 3, 3}),
			wantIDs:   []int{1, 0, 2, 0},
			wantSizes: []int64{16, 0, 0},
		},
		{
			name:      "huge sizes",
			bufs:      gbsRecs([3]int64{1 << 50, 0, 1}, [3]int64{1 << 41, 1, 2}, [3]int64{3 << 40, 2, 3}),
			wantIDs:   []int{0, 1, 0},
			wantSizes: []int64{1 << 50, 1 << 41},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ids, sizes, err := greedyBySizeObjects(context.Background(), tc.bufs)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids, tc.wantIDs) || !slices.Equal(sizes, tc.wantSizes) {
				t.Errorf("got ids %v sizes %v, want %v %v", ids, sizes, tc.wantIDs, tc.wantSizes)
			}
			refIDs, refSizes := gbsRefGreedyBySize(tc.bufs)
			if !slices.Equal(refIDs, tc.wantIDs) || !slices.Equal(refSizes, tc.wantSizes) {
				t.Errorf("reference: ids %v sizes %v, want %v %v", refIDs, refSizes, tc.wantIDs, tc.wantSizes)
			}
		})
	}
}

func TestGBSPositions(t *testing.T) {
	pm := []int64{64, 32, 8, 8, 0}
	tests := []struct {
		size int64
		want int32
	}{
		{64, 0}, {40, 0}, {32, 1}, {9, 1}, {8, 3}, {1, 3}, {0, 4},
	}
	for _, tc := range tests {
		got, err := gbsPositions([]workloads.Buffer{{Size: tc.size}}, pm)
		if err != nil || got[0] != tc.want {
			t.Errorf("position of size %d in %v = %v, %v; want %d", tc.size, pm, got, err, tc.want)
		}
	}
	if _, err := gbsPositions([]workloads.Buffer{{ID: 7, Size: 65}}, pm); err == nil ||
		!strings.Contains(err.Error(), "id 7") {
		t.Errorf("size above every maximum: err = %v, want one naming id 7", err)
	}
}

func TestGreedyBySizeBadInput(t *testing.T) {
	tests := []struct {
		name string
		buf  workloads.Buffer
		want string
	}{
		{"first after last", workloads.Buffer{ID: 4, Size: 8, First: 5, Last: 3}, "buffer 1 (id 4): first task 5 > last task 3"},
		{"negative size", workloads.Buffer{ID: 4, Size: -1, First: 0, Last: 3}, "buffer 1 (id 4): negative size -1"},
		{"negative first", workloads.Buffer{ID: 4, Size: 8, First: -2, Last: 3}, "buffer 1 (id 4): negative first task -2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &workloads.Problem{Buffers: []workloads.Buffer{{ID: 3, Size: 8, First: 0, Last: 1}, tc.buf}}
			plan, err := greedyBySize{}.Plan(context.Background(), p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Plan = %v, %v; want error containing %q", plan, err, tc.want)
			}
		})
	}
}

func TestGreedyBySizePlanLayout(t *testing.T) {
	// Upstream Model.ChainRecords: objects [64 32], laid back to back.
	p := &workloads.Problem{Buffers: gbsRecs([3]int64{16, 0, 1}, [3]int64{8, 1, 2}, [3]int64{64, 2, 3},
		[3]int64{32, 3, 4}, [3]int64{8, 4, 5})}
	s, err := Lookup("greedy-by-size")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{0, 64, 0, 64, 0}; !slices.Equal(plan.Offsets, want) || plan.Footprint != 96 {
		t.Errorf("offsets %v footprint %d, want %v 96", plan.Offsets, plan.Footprint, want)
	}
	p.Alignment = 128
	plan, err = s.Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{0, 128, 0, 128, 0}; !slices.Equal(plan.Offsets, want) || plan.Footprint != 160 {
		t.Errorf("aligned: offsets %v footprint %d, want %v 160", plan.Offsets, plan.Footprint, want)
	}
	empty, err := s.Plan(context.Background(), &workloads.Problem{})
	if err != nil || !empty.IsObjects() || empty.Footprint != 0 || len(empty.Offsets) != 0 {
		t.Errorf("empty problem: %+v, %v; want an empty object plan", empty, err)
	}
}

func TestGreedyBySizeCancel(t *testing.T) {
	bufs := synthetic.RandomDAG(synthetic.DefaultDAG(100_000, 1)).Buffers
	checkStops(t, func(ctx context.Context) error {
		_, _, err := greedyBySizeObjects(ctx, bufs)
		return err
	})
}

func TestPositionalMaximumsFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for trial := range 200 {
		bufs := gbsRandomCase(rng, trial)
		if got, want := PositionalMaximums(bufs), gbsRefPositionalMaximums(bufs); !slices.Equal(got, want) {
			t.Fatalf("trial %d: PositionalMaximums = %v, want %v (from the task profiles)", trial, got, want)
		}
	}
	// Task ids far apart cost nothing: only starts get a leaf.
	sparse := gbsRecs([3]int64{5, 1000000, 1000001}, [3]int64{7, 1000001, 1 << 40}, [3]int64{3, 0, 0})
	if got, want := PositionalMaximums(sparse), []int64{7, 5}; !slices.Equal(got, want) {
		t.Errorf("sparse tasks: PositionalMaximums = %v, want %v", got, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := positionalMaximums(ctx, sparse); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}

// gbsShapes are the inputs on which greedy-by-size used to be cubic or
// worse, each a function of (n, rng): equal sizes with long lifetimes (a
// staircase and random ones), heavy overlap, and few distinct tasks and
// sizes (ties everywhere).
var gbsShapes = []struct {
	name string
	gen  func(n int, rng *rand.Rand) []workloads.Buffer
}{
	{"equal-stair", func(n int, rng *rand.Rand) []workloads.Buffer {
		bufs := make([]workloads.Buffer, n)
		for i := range bufs {
			bufs[i] = workloads.Buffer{ID: i, Size: 64, First: i, Last: i + n/2}
		}
		return bufs
	}},
	{"equal-long", gbsEqualLongLived},
	{"heavy-overlap", func(n int, rng *rand.Rand) []workloads.Buffer {
		return heavyOverlapBuffers(n, rng, func() int64 { return 1 + rng.Int64N(4) })
	}},
	{"ties", func(n int, rng *rand.Rand) []workloads.Buffer {
		return fewTaskBuffers(n, 1+rng.IntN(8), rng, func() int64 { return 8 << rng.IntN(2) })
	}},
	{"mixed", func(n int, rng *rand.Rand) []workloads.Buffer {
		bufs := make([]workloads.Buffer, n)
		for i := range bufs {
			f := rng.IntN(n)
			l := f + rng.IntN(3)
			if rng.IntN(3) == 0 {
				l = f + rng.IntN(2*n)
			}
			bufs[i] = workloads.Buffer{ID: i, Size: int64(1 + rng.IntN(3)), First: f, Last: l}
		}
		return bufs
	}},
}

// heavyOverlapBuffers returns n buffers that start in the first eighth of
// n tasks and end in the last eighth (almost all overlap each other),
// sized by size.
func heavyOverlapBuffers(n int, rng *rand.Rand, size func() int64) []workloads.Buffer {
	bufs := make([]workloads.Buffer, n)
	for i := range bufs {
		f := rng.IntN(n/8 + 1)
		bufs[i] = workloads.Buffer{ID: i, Size: size(), First: f, Last: f + n - n/8 + rng.IntN(n/8+1)}
	}
	return bufs
}

// fewTaskBuffers returns n buffers starting at one of tasks tasks and
// living up to tasks more (ties everywhere), sized by size.
func fewTaskBuffers(n, tasks int, rng *rand.Rand, size func() int64) []workloads.Buffer {
	bufs := make([]workloads.Buffer, n)
	for i := range bufs {
		f := rng.IntN(tasks)
		bufs[i] = workloads.Buffer{ID: i, Size: size(), First: f, Last: f + rng.IntN(tasks)}
	}
	return bufs
}

// gbsEqualLongLived returns n buffers of one size, each starting at a
// random task below n and living n/4 to 3n/4 tasks: about n/2 live at
// once, and every record keeps losing its nearest object.
func gbsEqualLongLived(n int, rng *rand.Rand) []workloads.Buffer {
	bufs := make([]workloads.Buffer, n)
	for i := range bufs {
		f := rng.IntN(n)
		bufs[i] = workloads.Buffer{ID: i, Size: 64, First: f, Last: f + n/4 + rng.IntN(n/2+1)}
	}
	return bufs
}

func TestGreedyBySizeAdversarialMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 18))
	for _, shape := range gbsShapes {
		t.Run(shape.name, func(t *testing.T) {
			for trial := range 150 {
				bufs := shape.gen(1+rng.IntN(120), rng)
				if trial%2 == 1 {
					rng.Shuffle(len(bufs), func(i, j int) { bufs[i], bufs[j] = bufs[j], bufs[i] })
				}
				gbsCheckReference(t, trial, bufs)
			}
		})
	}
}

// gbsDiffCase returns a random problem of n buffers for the old-versus-new
// check, of one of three shapes: dense (few tasks, lifetimes overlapping
// and often tied), sparse (tasks far apart, most buffers short-lived, some
// living across many others) or twins (lifetimes drawn from a pool of
// n/10, so that many buffers share each one); sizes come from a few
// values (ties) or from a wide range.
func gbsDiffCase(rng *rand.Rand, n int, shape string, fewSizes bool) []workloads.Buffer {
	size := func() int64 { return 1 + rng.Int64N(1<<40) }
	if fewSizes {
		size = func() int64 { return []int64{0, 5, 5, 64, 64, 64, 4096}[rng.IntN(7)] }
	}
	pool := make([][2]int, 1+n/10)
	for k := range pool {
		f := rng.IntN(n)
		pool[k] = [2]int{f, f + rng.IntN(1+n/4)}
	}
	bufs := make([]workloads.Buffer, n)
	for i := range bufs {
		var f, l int
		switch shape {
		case "dense":
			tasks := 1 + n/8
			f = rng.IntN(tasks)
			l = f + rng.IntN(1+tasks/2)
		case "sparse":
			f = rng.IntN(n) * 1000
			l = f + rng.IntN(3)*1000
			if rng.IntN(10) == 0 {
				l = f + rng.IntN(n)*1000
			}
		default:
			life := pool[rng.IntN(len(pool))]
			f, l = life[0], life[1]
		}
		bufs[i] = workloads.Buffer{ID: i, Size: size(), First: f, Last: l}
	}
	return bufs
}

// TestGreedyBySizeMatchesOld holds greedy-by-size to its form before
// gbsTree (gbsOldRun) on problems too large for the plain reference:
// same object of every buffer, same object sizes, with gbsGaps kept from
// the start and from the default number of objects.
func TestGreedyBySizeMatchesOld(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 26))
	for trial := range 60 {
		shape, fewSizes := []string{"dense", "sparse", "twins"}[trial%3], trial%6 < 3
		n := 1 + rng.IntN(1200)
		bufs := gbsDiffCase(rng, n, shape, fewSizes)
		if trial%4 == 3 {
			rng.Shuffle(len(bufs), func(i, j int) { bufs[i], bufs[j] = bufs[j], bufs[i] })
		}
		for _, from := range []int{0, gbsGapsFrom} {
			wantIDs, wantSizes, err := gbsOldRun(context.Background(), bufs, from)
			if err != nil {
				t.Fatalf("trial %d: old: %v", trial, err)
			}
			ids, sizes, err := greedyBySizeRun(context.Background(), bufs, from)
			if err != nil {
				t.Fatalf("trial %d: %v", trial, err)
			}
			if !slices.Equal(ids, wantIDs) || !slices.Equal(sizes, wantSizes) {
				t.Fatalf("trial %d (%s, few sizes %v, n %d, gaps from %d): objects differ from the old planner's:\ngot  ids %v sizes %v\nwant ids %v sizes %v",
					trial, shape, fewSizes, n, from, ids, sizes, wantIDs, wantSizes)
			}
		}
	}
}
