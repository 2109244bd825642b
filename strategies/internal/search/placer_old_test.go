package search

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"membench/strategies/internal/cputime"
	"membench/strategies/internal/kernel"
	_ "membench/workloads/fieldsets" // idealloc/y-1
)

// compDecoder decodes as decodeIndexed did before kernel.FitIndex,
// through a kernel.CompIndex: with fit kernel.CompIndex.FirstFit, the
// lazy walk over the index's runs (from the coarse hint where the index
// gives them); with fitOverlapping, first fit over every buffer's
// overlapping components, gathered and merged (as before
// CompIndex.FirstFit). It is the reference of TestDecodeIndexedMatchesOld
// and the "compindex" side of BenchmarkDecodeY1.
type compDecoder struct {
	pl  *Placer
	ix  *kernel.CompIndex
	fit func(ix *kernel.CompIndex, t *kernel.Task, size, align int64) int64
}

// newCompDecoder returns a compDecoder over pl's spans, gathering by id
// and with coarse hints where hints is set, as Placer's decodes did.
func newCompDecoder(pl *Placer, hints bool, fit func(ix *kernel.CompIndex, t *kernel.Task, size, align int64) int64) *compDecoder {
	ix := kernel.NewCompIndex(pl.tspan)
	ix.GatherByID()
	if hints {
		ix.CoarseHints()
	}
	return &compDecoder{pl: pl, ix: ix, fit: fit}
}

// fitOverlapping is first fit over Overlapping's merged components.
func fitOverlapping(ix *kernel.CompIndex, t *kernel.Task, size, align int64) int64 {
	return kernel.FirstFit(ix.Overlapping(nil, t), size, align)
}

// decode is Decoder.PlaceBelow without a bound: offsets are reset to
// the pins, then every other buffer of order decoded.
func (c *compDecoder) decode(ctx context.Context, order []int32, offsets []int64) (int64, error) {
	pl := c.pl
	copy(offsets, pl.pin)
	c.ix.Reset()
	for i, o := range offsets {
		if o >= 0 {
			c.ix.Place(&pl.tasks[i], kernel.Comp{Lo: o, Hi: o + pl.Size[i]})
		}
	}
	for k, idx := range order {
		if pl.pin[idx] >= 0 {
			continue
		}
		if k%kernel.CtxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		t := &pl.tasks[idx]
		o := c.fit(c.ix, t, t.Size, pl.alignOf(idx))
		offsets[idx] = o
		c.ix.Place(t, kernel.Comp{Lo: o, Hi: o + t.Size})
	}
	return Peak(pl.Size, offsets), nil
}

// TestDecodeIndexedMatchesOld decodes random orders of random problems
// through the index (decodeIndexed, kernel.FitIndex) and through a
// kernel.CompIndex, lazily with and without coarse hints and by merging
// every buffer's components (compDecoder), and requires the same offsets
// and peak: sparse problems (short lifetimes), dense ones (long
// lifetimes, most buffers live together) and problems big enough for the
// id tree's kept nodes and for FitIndex's blocks (first tasks spread over
// more than 256; some with hundreds starting at the first task), with
// zero sizes, alignments and pins.
func TestDecodeIndexedMatchesOld(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(20, 20))
	for trial := range 300 {
		n := 1 + r.IntN(60)
		span := 1 + r.IntN(40)
		switch trial % 4 {
		case 3:
			n = 200 + r.IntN(800)
			span = 20 + r.IntN(400)
		case 2:
			n = 600 + r.IntN(900)
			span = 300 + r.IntN(3000)
		}
		dense := trial%2 == 1
		if dense {
			span = 1 + span/8 // lifetimes reach over most of it
		}
		p := randomPlacerProblem(r, n, span, trial%3 == 0)
		if trial%8 == 2 {
			// A third of the buffers start at the first task (as 9,331 of
			// Y_1's do): FitIndex keeps the merged ranges live there.
			for i := range p.Buffers {
				if b := &p.Buffers[i]; i%3 == 0 {
					b.First, b.Last = 0, b.Last-b.First
				}
			}
		}
		pl, err := newPlacer(ctx, "t", p, -1)
		if err != nil {
			t.Fatal(err)
		}
		refs := []*compDecoder{newCompDecoder(pl, true, (*kernel.CompIndex).FirstFit),
			newCompDecoder(pl, false, (*kernel.CompIndex).FirstFit), newCompDecoder(pl, false, fitOverlapping)}
		direct := directDecoder{pl.NewDecoder()}
		order := kernel.InOrder(n)
		for range 3 {
			r.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
			got := make([]int64, n)
			pg, err := pl.Place(ctx, order, got)
			if err != nil {
				t.Fatal(err)
			}
			for k, ref := range refs {
				want := make([]int64, n)
				pw, err := ref.decode(ctx, order, want)
				if err != nil {
					t.Fatal(err)
				}
				if pw != pg || !slices.Equal(want, got) {
					t.Fatalf("trial %d (n %d, dense %v), reference %d: order %v:\nwant %d %v\ngot  %d %v", trial, n, dense, k, order, pw, want, pg, got)
				}
			}
			want := make([]int64, n)
			if pw, err := direct.decode(ctx, order, want); err != nil || pw != pg || !slices.Equal(want, got) {
				t.Fatalf("trial %d (n %d, dense %v), directDecoder: order %v:\nwant %d %v (%v)\ngot  %d %v", trial, n, dense, order, pw, want, err, pg, got)
			}
		}
	}
}

// BenchmarkDecodeY1 is the A/B benchmark of one first-fit decode of
// idealloc's Y_1 (62,185 buffers; random-search and the other OmniMalloc
// searches decode it once a trial): "compindex" through a
// kernel.CompIndex with coarse hints (compDecoder, the decode before
// kernel.FitIndex), "new" the Placer's decode (kernel.FitIndex), each
// with an index of its own, in one process, on the same shuffled order
// (random-search's first, seed 42); "direct" is the Placer's decode
// reading each buffer's task as its first fit comes (directDecoder). The
// peaks must agree. Besides wall time it reports the process's CPU time
// a decode (cpu-ns/op), steadier on a loaded machine.
//
//	go test ./strategies/internal/search -run '^$' -bench DecodeY1 -benchmem -count 5
func BenchmarkDecodeY1(b *testing.B) {
	ctx := context.Background()
	pl := y1Placer(b)
	order := kernel.InOrder(pl.Len())
	NewPyRandom(42).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	comp, dec := newCompDecoder(pl, true, (*kernel.CompIndex).FirstFit), pl.NewDecoder()
	direct := directDecoder{pl.NewDecoder()}
	peaks := map[string]int64{}
	for _, v := range []struct {
		name   string
		decode func(context.Context, []int32, []int64) (int64, error)
	}{{"compindex", comp.decode}, {"direct", direct.decode}, {"new", func(ctx context.Context, order []int32, offsets []int64) (int64, error) {
		return dec.PlaceBelow(ctx, order, offsets, math.MaxInt64)
	}}} {
		b.Run(v.name, func(b *testing.B) {
			offsets := make([]int64, pl.Len())
			cpu := cputime.Process()
			for b.Loop() {
				peak, err := v.decode(ctx, order, offsets)
				if err != nil {
					b.Fatal(err)
				}
				peaks[v.name] = peak
			}
			b.ReportMetric(float64(cputime.Process()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
	for name, peak := range peaks {
		if peak != peaks["new"] {
			b.Fatalf("peaks differ: %s %d, new %d", name, peak, peaks["new"])
		}
	}
}

// directDecoder decodes as decodeIndexed did before it read the tasks in
// a pass of their own: each first fit reads its buffer's task from the
// Placer's table itself. It is the "direct" side of BenchmarkDecodeY1
// and a reference of TestDecodeIndexedMatchesOld.
type directDecoder struct{ *Decoder }

func (d directDecoder) decode(ctx context.Context, order []int32, offsets []int64) (int64, error) {
	pl := d.pl
	copy(offsets, pl.pin)
	ix := d.index(offsets)
	for _, idx := range order {
		if pl.pins && pl.pin[idx] >= 0 {
			continue
		}
		if err := d.look(ctx); err != nil {
			return 0, err
		}
		t := &pl.tasks[idx]
		o := ix.FirstFit(t, t.Size, pl.alignOf(idx))
		offsets[idx] = o
		ix.Place(t, kernel.Comp{Lo: o, Hi: o + t.Size})
	}
	return Peak(pl.Size, offsets), nil
}
