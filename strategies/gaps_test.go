package strategies

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

// refPlaceOneByOne is placeOneByOne the straightforward way, O(n^2): for
// each buffer, every placed buffer live beside it, sorted by offset (ties:
// placement order), and every gap between them, empty ones too, whether
// the buffer conflicts with every placed one or not. placeOneByOne must
// give the same offsets.
func refPlaceOneByOne(bufs []workloads.Buffer, order []int32, choose chooser, end func(off, size int64) int64) ([]int64, int64) {
	type placed struct {
		i        int32
		off, end int64
	}
	offsets := make([]int64, len(bufs))
	var all []placed
	var fp int64
	for _, i := range order {
		size := bufs[i].Size
		if size == 0 {
			continue
		}
		var live []placed
		for _, p := range all {
			if bufs[p.i].First <= bufs[i].Last && bufs[i].First <= bufs[p.i].Last {
				live = append(live, p)
			}
		}
		// Stable: equal offsets keep placement order.
		slices.SortStableFunc(live, func(x, y placed) int { return cmp.Compare(x.off, y.off) })
		spans := make([]kernel.Comp, len(live))
		for k, p := range live {
			spans[k] = kernel.Comp{Lo: p.off, Hi: p.end}
		}
		off := choose(size, spans)
		all = append(all, placed{i, off, end(off, size)})
		offsets[i] = off
		fp = max(fp, off+size)
	}
	return offsets, fp
}

// randomGapProblem returns n buffers of the given shape: "sparse" (short
// lifetimes), "dense" (every lifetime contains task n), "half" (half of
// them live throughout, the rest sparse) or "point" (all at task 0).
// Sizes are small and often zero or a multiple of 16, so that buffers fit
// gaps exactly, alignment gaps among them.
func randomGapProblem(rng *rand.Rand, n int, shape string) []workloads.Buffer {
	bufs := make([]workloads.Buffer, n)
	for i := range bufs {
		b := workloads.Buffer{ID: i}
		switch rng.IntN(4) {
		case 0:
			b.Size = 0
		case 1:
			b.Size = 16 * (1 + rng.Int64N(8))
		default:
			b.Size = 1 + rng.Int64N(200)
		}
		switch {
		case shape == "dense":
			b.First, b.Last = rng.IntN(n), n+rng.IntN(n)
		case shape == "point":
		case shape == "half" && i%2 == 0:
			b.First, b.Last = 0, 2*n
		default:
			b.First = rng.IntN(2 * n)
			b.Last = b.First + rng.IntN(1+n/4)
		}
		bufs[i] = b
	}
	return bufs
}

// TestPlaceOneByOneMatchesReference runs every rule placeOneByOne serves
// on random problems, dense and half-dense ones among them, with and
// without alignment, and compares each offset with refPlaceOneByOne.
func TestPlaceOneByOneMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	type rule struct {
		name   string
		choose func(align int64) chooser
		end    func(align int64) func(off, size int64) int64
	}
	alignedEnd := func(align int64) func(off, size int64) int64 {
		return func(off, size int64) int64 { return AlignUp(off+size, align) }
	}
	rules := []rule{
		{"xla-heap", xlaHeapChoose, alignedEnd},
		{"tflm-greedy", tflmGreedyChoose, alignedEnd},
		{"tflite-arena", tfliteArenaChoose, func(int64) func(off, size int64) int64 {
			return func(off, size int64) int64 { return off + size }
		}},
		{"ort-mem-pattern", ortMemPatternChoose, func(align int64) func(off, size int64) int64 {
			return func(off, size int64) int64 { return off + AlignUp(size, align) }
		}},
	}
	problems := 0
	for _, shape := range []string{"sparse", "dense", "half", "point"} {
		for range 60 {
			// Alignments above the sizes leave gaps that later buffers
			// fill; up to 400 buffers make several compSet blocks.
			n := 1 + rng.IntN(400)
			bufs := randomGapProblem(rng, n, shape)
			align := []int64{1, 8, 64, 3, 256, 1000}[rng.IntN(6)]
			perm := rng.Perm(n)
			random := make([]int32, n)
			for k, i := range perm {
				random[k] = int32(i)
			}
			orders := map[string][]int32{"size": tflmGreedyOrder(bufs), "arena": tfliteArenaOrder(bufs), "random": random}
			for _, r := range rules {
				for oname, order := range orders {
					name := fmt.Sprintf("%s/%s/n=%d/align=%d/%s", shape, r.name, n, align, oname)
					got, gotFP, err := placeOneByOne(context.Background(), r.name, bufs, order, math.MaxInt64, r.choose(align), r.end(align))
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					want, wantFP := refPlaceOneByOne(bufs, order, r.choose(align), r.end(align))
					if !slices.Equal(got, want) || gotFP != wantFP {
						t.Fatalf("%s: offsets %v (footprint %d), want %v (footprint %d)", name, got, gotFP, want, wantFP)
					}
				}
			}
			problems++
		}
	}
	if problems != 240 {
		t.Fatalf("ran %d problems, want 240", problems)
	}
}

// shortcut with its general loop on random problems, dense and half-dense
// ones among them.
func TestExecuTorchGreedyDenseMatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, shape := range []string{"sparse", "dense", "half", "point"} {
		for trial := range 50 {
			n := 1 + rng.IntN(400)
			bufs := randomGapProblem(rng, n, shape)
			align := []int64{16, 32, 64}[rng.IntN(3)]
			sizes := make([]int64, n)
			for i, b := range bufs {
				sizes[i] = AlignUp(b.Size, align)
			}
			for _, overlap := range []bool{true, false} {
				got, err := executorchGreedyOffsets(context.Background(), bufs, sizes, overlap, true)
				if err != nil {
					t.Fatal(err)
				}
				want, err := executorchGreedyOffsets(context.Background(), bufs, sizes, overlap, false)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%s trial %d (n %d, align %d, overlap %v): offsets %v, want %v", shape, trial, n, align, overlap, got, want)
				}
			}
		}
	}
}

// TestOrdersMatchComparisonSort compares the planners' orders, which
// kernel.StableOrder sorts by radix, with a comparison sort on their keys as the
// upstreams write them, on random problems with many equal sizes, equal
// first tasks, whole-run buffers, negative tasks and shuffled IDs.
func TestOrdersMatchComparisonSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	sorted := func(n int, key func(i int32) [3]int64) []int32 {
		order := kernel.InOrder(n)
		slices.SortFunc(order, func(x, y int32) int {
			kx, ky := key(x), key(y)
			return cmp.Or(cmp.Compare(kx[0], ky[0]), cmp.Compare(kx[1], ky[1]), cmp.Compare(kx[2], ky[2]), cmp.Compare(x, y))
		})
		return order
	}
	for trial := range 200 {
		n := rng.IntN(300)
		bufs := randomGapProblem(rng, n, []string{"sparse", "dense", "half", "point"}[trial%4])
		for i, id := range rng.Perm(n) {
			bufs[i].ID = id
			if trial%3 == 0 {
				bufs[i].First -= n
			}
		}
		first, last := 0, 0
		for i, b := range bufs {
			if i == 0 || b.First < first {
				first = b.First
			}
			if i == 0 || b.Last > last {
				last = b.Last
			}
		}
		for _, c := range []struct {
			name      string
			got, want []int32
		}{
			{"tflite-arena", tfliteArenaOrder(bufs), sorted(n, func(i int32) [3]int64 {
				if b := bufs[i]; b.First != first || b.Last != last {
					return [3]int64{1, -b.Size, int64(b.First)}
				}
				return [3]int64{}
			})},
			{"tflm-greedy", tflmGreedyOrder(bufs), sorted(n, func(i int32) [3]int64 { return [3]int64{-bufs[i].Size, -int64(i)} })},
			{"ort-mem-pattern", ortMemPatternOrder(bufs), sorted(n, func(i int32) [3]int64 {
				return [3]int64{int64(bufs[i].First), int64(bufs[i].ID)}
			})},
			{"xla-heap-spatial", xlaHeapOrder(bufs, false), refXLAHeapOrder(bufs, false)},
			{"xla-heap-temporal", xlaHeapOrder(bufs, true), refXLAHeapOrder(bufs, true)},
		} {
			if n == 0 && len(c.got) == 0 {
				continue
			}
			if !slices.Equal(c.got, c.want) {
				t.Fatalf("trial %d (n %d): %s order %v, want %v", trial, n, c.name, c.got, c.want)
			}
		}
	}
}

// TestPlaceOneByOneHugeBuffer: a buffer of size math.MaxInt64 reaches
// the limit that means "never give up", and every planner built on
// placeOneByOne still places it, at 0, beside a zero-size one.
func TestPlaceOneByOneHugeBuffer(t *testing.T) {
	p := &workloads.Problem{Buffers: []workloads.Buffer{{ID: 0, Size: math.MaxInt64, Last: 1}, {ID: 1, Last: 1}}}
	for _, name := range []string{"xla-heap", "xla-heap-spatial", "xla-heap-temporal", "tflite-arena", "tflm-greedy", "ort-mem-pattern"} {
		plan := planOrFatal(t, name, p)
		if !slices.Equal(plan.Offsets, []int64{0, 0}) || plan.Footprint != math.MaxInt64 {
			t.Errorf("%s: offsets %v, footprint %d; want [0 0], %d", name, plan.Offsets, plan.Footprint, int64(math.MaxInt64))
		}
	}
}
