package strategies

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"membench/strategies/internal/kernel"
	"membench/workloads"
	_ "membench/workloads/fieldsets" // idealloc's instances, for the benchmark
)

// onLoop is a planner of this package run on a given loop (placer), so
// that a test can plan with the loop a planner used before and with the
// straightforward reference loop; Declare wraps it as the registry wraps
// the planner itself.
type onLoop struct {
	name string
	plan func(context.Context, *workloads.Problem, placer) (*Plan, error)
	loop placer
}

func (s onLoop) Name() string { return s.name }

func (s onLoop) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	return s.plan(ctx, p, s.loop)
}

// refLoop is refPlaceOneByOne as a placer: the O(n^2) loop, checking the
// records as placeOneByOne does.
func refLoop(ctx context.Context, name string, bufs []workloads.Buffer, order []int32, limit int64,
	choose chooser, end func(off, size int64) int64) ([]int64, int64, error) {
	if err := kernel.RecordError(name, bufs); err != nil {
		return nil, 0, err
	}
	offsets, fp := refPlaceOneByOne(bufs, order, choose, end)
	return offsets, fp, nil
}

// tfliteArenaOnLoop is tflite-arena's plan with the rule as written
// (tfliteArenaAllocateOn) on the given loop.
func tfliteArenaOnLoop(align int64) func(context.Context, *workloads.Problem, placer) (*Plan, error) {
	return func(ctx context.Context, p *workloads.Problem, loop placer) (*Plan, error) {
		return tfliteArena{align}.plan(ctx, p, func(ctx context.Context, bufs []workloads.Buffer, order []int32, align int64) ([]int64, int64, error) {
			return tfliteArenaAllocateOn(ctx, loop, bufs, order, align)
		})
	}
}

// byIDCase is one of the planners moved onto placeOneByOneByID, with the
// strategy as registered (spec) and the same planner on another loop.
type byIDCase struct {
	spec  string
	forms workloads.Forms
	on    func(loop placer) onLoop
}

func byIDCases() []byIDCase {
	var cases []byIDCase
	for _, align := range []int64{1, 3, 8, 64, 256} {
		cases = append(cases, byIDCase{fmt.Sprintf("tflite-arena?align=%d", align), 0, func(loop placer) onLoop {
			return onLoop{"tflite-arena", tfliteArenaOnLoop(align), loop}
		}})
	}
	cases = append(cases, byIDCase{"tflm-greedy", workloads.FormFixed, func(loop placer) onLoop {
		return onLoop{"tflm-greedy", tflmGreedy{}.plan, loop}
	}})
	return cases
}

// randomByIDProblem returns a problem of n buffers shaped like idealloc's
// IOPDDL instances for shape "long" (most lifetimes a few tasks, some over
// much of the run, so that many placed buffers start inside a lifetime),
// else randomGapProblem's shape. It sets, at random: the problem's
// alignment, TFLite Micro's model format (its 16-byte default), fixed
// offsets on some buffers, and two or three memory spaces, one with a
// capacity.
func randomByIDProblem(rng *rand.Rand, n int, shape string) *workloads.Problem {
	var bufs []workloads.Buffer
	if shape == "long" {
		bufs = make([]workloads.Buffer, n)
		for i := range bufs {
			b := workloads.Buffer{ID: i, First: rng.IntN(n)}
			switch rng.IntN(10) {
			case 0:
				b.Size = 0
			case 1, 2:
				b.Size = 16 * (1 + rng.Int64N(8))
			case 3:
				b.Size = 1000 + rng.Int64N(5000)
			default:
				b.Size = 1 + rng.Int64N(300)
			}
			if rng.IntN(8) == 0 {
				b.Last = b.First + rng.IntN(n)
			} else {
				b.Last = b.First + rng.IntN(5)
			}
			bufs[i] = b
		}
	} else {
		bufs = randomGapProblem(rng, n, shape)
	}
	p := &workloads.Problem{Buffers: bufs}
	switch rng.IntN(4) {
	case 0:
		p.Alignment = []int64{1, 3, 16, 64}[rng.IntN(4)]
	case 1:
		p.Format = workloads.FormatTFLiteModel
	}
	if rng.IntN(3) == 0 {
		p.Fixed = make([]int64, n)
		for i := range p.Fixed {
			p.Fixed[i] = workloads.NoOffset
			if rng.IntN(5) == 0 {
				p.Fixed[i] = rng.Int64N(2000)
			}
		}
	}
	if rng.IntN(4) == 0 {
		p.Memories = []workloads.Memory{{Name: "a"}, {Name: "b"}, {Name: "c", Capacity: 1 + rng.Int64N(5000)}}[:2+rng.IntN(2)]
		p.Spaces = make([]int, n)
		for i := range p.Spaces {
			p.Spaces[i] = rng.IntN(len(p.Memories))
		}
	}
	return p
}

// samePlan reports how two plans or errors differ, or "" when they agree
// in offsets, footprints, arena and error message.
func samePlan(got *Plan, gotErr error, want *Plan, wantErr error) string {
	if (gotErr != nil) != (wantErr != nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		return fmt.Sprintf("error %v, want %v", gotErr, wantErr)
	}
	if gotErr != nil {
		return ""
	}
	if len(got.Offsets) != len(want.Offsets) {
		return fmt.Sprintf("%d offsets, want %d", len(got.Offsets), len(want.Offsets))
	}
	for i := range got.Offsets {
		if got.Offsets[i] != want.Offsets[i] {
			return fmt.Sprintf("buffer %d at %d, want %d", i, got.Offsets[i], want.Offsets[i])
		}
	}
	if got.Footprint != want.Footprint || got.Arena != want.Arena || !slices.Equal(got.Footprints, want.Footprints) {
		return fmt.Sprintf("footprint %d arena %d footprints %v, want %d, %d, %v",
			got.Footprint, got.Arena, got.Footprints, want.Footprint, want.Arena, want.Footprints)
	}
	return ""
}

// TestPlaceByIDMatchesOldLoop plans random problems, sparse, dense and
// idealloc-shaped ones (long), with tflite-arena at several alignments and
// tflm-greedy (alignment, TFLite Micro's model default, fixed offsets),
// some with several memory spaces, through the registry, and compares
// every offset, footprint, arena and error with the same planner on the
// loop it used before (placeOneByOne) and on the straightforward
// reference loop (refPlaceOneByOne).
func TestPlaceByIDMatchesOldLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 62185))
	ctx := context.Background()
	cases := byIDCases()
	problems := 0
	for _, shape := range []string{"long", "sparse", "dense", "half", "point"} {
		for trial := range 40 {
			n := 1 + rng.IntN(600)
			p := randomByIDProblem(rng, n, shape)
			for _, c := range cases {
				s, err := Lookup(c.spec)
				if err != nil {
					t.Fatal(err)
				}
				got, gotErr := s.Plan(ctx, p)
				for _, loop := range []struct {
					name string
					loop placer
				}{{"placeOneByOne", placeOneByOne}, {"refPlaceOneByOne", refLoop}, {"byIDAlways", byIDAlways}} {
					want, wantErr := Declare(c.on(loop.loop), c.forms).Plan(ctx, p)
					if d := samePlan(got, gotErr, want, wantErr); d != "" {
						t.Fatalf("%s trial %d (n %d, alignment %d, fixed %v, spaces %d), %s against %s: %s",
							shape, trial, n, p.Alignment, p.Fixed != nil, len(p.Memories), c.spec, loop.name, d)
					}
				}
			}
			problems++
		}
	}
	if problems != 200 {
		t.Fatalf("ran %d problems, want 200", problems)
	}
}

// byIDAlways is placeOneByOneByID gathering by id ranges even where
// kernel.TaskSpans.GatherByIDPays says it does not pay.
func byIDAlways(ctx context.Context, name string, bufs []workloads.Buffer, order []int32, limit int64,
	choose chooser, end func(off, size int64) int64) ([]int64, int64, error) {
	return placeOneByOneOn(ctx, name, bufs, order, limit, choose, end, loopOptions{byID: true, always: true})
}

// TestPlaceByIDMatchesOldLoopIdealloc plans idealloc's G_1 (816
// buffers, heavily overlapping) with both planners on both loops.
func TestPlaceByIDMatchesOldLoopIdealloc(t *testing.T) {
	p := loadWorkload(t, "idealloc/g-1")
	for _, c := range byIDCases() {
		s, err := Lookup(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		got, gotErr := s.Plan(context.Background(), p)
		want, wantErr := Declare(c.on(placeOneByOne), c.forms).Plan(context.Background(), p)
		if d := samePlan(got, gotErr, want, wantErr); d != "" {
			t.Errorf("%s: %s", c.spec, d)
		}
	}
}

// loadWorkload builds a registered workload.
func loadWorkload(tb testing.TB, name string) *workloads.Problem {
	tb.Helper()
	info, ok := workloads.Lookup(name)
	if !ok {
		tb.Fatalf("workload %s is not registered", name)
	}
	p, err := info.New(&workloads.Args{})
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// BenchmarkPlaceByID times tflite-arena and tflm-greedy as they planned
// before (old: the rule as written on placeOneByOne) and as they plan now
// (new: on placeOneByOneByID, tflite-arena on coarse ends), in one
// process, on idealloc's Y_1 (62,185 buffers) and G_1 (816). The old loop
// takes tens of seconds on Y_1: run with -benchtime 1x.
func BenchmarkPlaceByID(b *testing.B) {
	for _, w := range []string{"idealloc/y-1", "idealloc/g-1"} {
		p := loadWorkload(b, w)
		old := func(plan func(context.Context, *workloads.Problem, placer) (*Plan, error)) Strategy {
			return onLoop{"old", plan, placeOneByOne}
		}
		for _, c := range []struct {
			name     string
			old, new Strategy
		}{
			{"tflite-arena", old(tfliteArenaOnLoop(tfliteTensorAlignment)), tfliteArena{tfliteTensorAlignment}},
			{"tflm-greedy", old(tflmGreedy{}.plan), tflmGreedy{}},
		} {
			for _, s := range []struct {
				name string
				s    Strategy
			}{{"old", c.old}, {"new", c.new}} {
				b.Run(fmt.Sprintf("%s/%s/%s", w, c.name, s.name), func(b *testing.B) {
					for b.Loop() {
						if _, err := s.s.Plan(context.Background(), p); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// TestTFLiteCoarseDenseExactGap: on coarse ends a gap whose start is
// aligned looks one byte shorter than its room, and the loop's dense path
// (a buffer live with every placed one) must still offer it. Buffers 0
// and 1 are put at 0 and 128 (alignment 64); buffer 2, 64 bytes and live
// with both, fits [64, 128) exactly, as the rule as written finds.
func TestTFLiteCoarseDenseExactGap(t *testing.T) {
	bufs := []workloads.Buffer{{ID: 0, Size: 64, Last: 1}, {ID: 1, Size: 64, Last: 1}, {ID: 2, Size: 64, Last: 1}}
	order := []int32{0, 1, 2}
	// pinned places the first buffers at the given offsets and the rest
	// by choose.
	pinned := func(choose chooser, at ...int64) chooser {
		return func(size int64, live []kernel.Comp) int64 {
			if len(at) > 0 {
				off := at[0]
				at = at[1:]
				return off
			}
			return choose(size, live)
		}
	}
	want, _ := refPlaceOneByOne(bufs, order, pinned(tfliteArenaChoose(64), 0, 128), func(off, size int64) int64 { return off + size })
	got, _, err := placeOneByOneOn(context.Background(), "tflite-arena", bufs, order, math.MaxInt64,
		pinned(tfliteArenaChooseCoarse(64), 0, 128), tfliteCoarseEnd(64), loopOptions{byID: true, slack: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(want, []int64{0, 128, 64}) || !slices.Equal(got, want) {
		t.Errorf("offsets %v, want %v (reference [0 128 64])", got, want)
	}
}
