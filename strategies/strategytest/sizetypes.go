package strategytest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"membench/internal/ctxcount"
	"membench/strategies"
	"membench/workloads"
	"membench/workloads/synthetic"
)

// ShapesPerType is how many random problems of each size type other than
// bytes ShapeCorpus holds, and ReusePerCorpus how many random byte
// problems with a reallocation graph.
const (
	ShapesPerType  = 20
	ReusePerCorpus = 10
)

// shapeRecord is a record of a texture or BHWC problem: its extents and
// lifetime.
type shapeRecord struct {
	s           workloads.Shape
	first, last int
}

// shapeCase builds a problem of size type t and element size elem from
// records.
func shapeCase(name string, t workloads.SizeType, elem int64, recs ...shapeRecord) Case {
	shapes := make([]workloads.Shape, len(recs))
	spans := make([]workloads.Buffer, len(recs))
	for i, r := range recs {
		shapes[i], spans[i] = r.s, workloads.Buffer{First: r.first, Last: r.last}
	}
	p, err := workloads.NewShapeProblem(name, t, elem, shapes, spans)
	if err != nil {
		panic("strategytest: " + err.Error())
	}
	return Case{name, p}
}

// ShapeCorpus returns the problems of 2D and 3D textures and of BHWC
// shapes (DESIGN §17) that a strategy planning the size type must plan
// validly, and any other must refuse with TFLite's reason: LiteRT's own
// test records (memory_management_test.cc, revision f67457790c9c:
// Model.UInt2Records, Model.UInt3Records, Model.BHWCRecords), edge cases
// (no record, zero extents, equal extents, extents whose uint32 element
// count wraps as TFLite's does, the largest extents), feature maps
// (synthetic.Textures) and random problems (RandomShapeProblem); and byte
// problems with a reallocation graph (RandomReuseProblem), which every
// strategy plans (only greedy-in-order reads the graph).
func ShapeCorpus() []Case {
	t2, t3, bhwc := workloads.SizeTexture2D, workloads.SizeTexture3D, workloads.SizeBHWC
	r := func(first, last int, s ...int64) shapeRecord {
		var sh workloads.Shape
		copy(sh[:], s)
		return shapeRecord{sh, first, last}
	}
	cases := []Case{
		shapeCase("litert-uint2", t2, 8, r(0, 1, 2, 8), r(1, 2, 2, 8), r(2, 4, 1, 12), r(3, 5, 2, 8), r(4, 5, 8, 2),
			r(5, 7, 2, 8), r(6, 8, 1, 8), r(7, 8, 2, 8), r(8, 9, 4, 1)),
		shapeCase("litert-uint3", t3, 16, r(0, 1, 1, 2, 8), r(1, 2, 4, 3, 2), r(2, 4, 1, 1, 1), r(3, 5, 2, 4, 1), r(4, 5, 2, 2, 2),
			r(5, 7, 8, 1, 2), r(6, 8, 1, 2, 1), r(7, 8, 1, 1, 1), r(8, 9, 2, 2, 2)),
		shapeCase("litert-bhwc", bhwc, 4, r(0, 1, 1, 1, 2, 8), r(1, 2, 1, 1, 2, 8), r(2, 4, 1, 1, 1, 16), r(3, 5, 1, 1, 2, 8),
			r(4, 5, 1, 1, 8, 2), r(5, 7, 1, 1, 2, 8), r(6, 8, 1, 16, 1, 1), r(7, 8, 16, 1, 1, 1), r(8, 9, 1, 1, 1, 16)),
		shapeCase("empty-2d", t2, 8),
		shapeCase("zero-extents-3d", t3, 4, r(0, 2, 0, 4, 4), r(1, 3, 4, 0, 4), r(3, 5, 4, 4, 0), r(4, 6, 4, 4, 4), r(0, 6, 0, 0, 0)),
		shapeCase("zero-extents-bhwc", bhwc, 2, r(0, 1, 0, 1, 1, 1), r(1, 2, 1, 1, 1, 1), r(2, 3, 1, 0, 8, 8)),
		shapeCase("equal-extents-2d", t2, 16, r(0, 0, 4, 4), r(0, 1, 4, 4), r(1, 2, 4, 4), r(2, 3, 4, 4), r(2, 2, 4, 4)),
		// 65536 x 65536 texels: TFLite's uint32 element count wraps to 0.
		shapeCase("wrapping-elements-2d", t2, 1, r(0, 1, 65536, 65536), r(2, 3, 1, 1), r(3, 4, 65536, 1), r(4, 5, 2, 65536)),
		shapeCase("largest-extents-3d", t3, 1, r(0, 1, math.MaxUint32, 1, 1), r(1, 2, 1, math.MaxUint32, 1), r(2, 3, 1, 1, math.MaxUint32)),
		shapeCase("largest-extents-bhwc", bhwc, 1, r(0, 1, math.MaxInt32, 1, 1, 1), r(1, 2, 1, 1, 1, math.MaxInt32), r(2, 3, math.MaxInt32, 1, 1, 1)),
	}
	for _, t := range []workloads.SizeType{t2, t3, bhwc} {
		p := synthetic.Textures(synthetic.TexturesConfig{N: 300, Seed: 3, Type: t})
		cases = append(cases, Case{p.Name, p})
		for seed := range uint64(ShapesPerType) {
			p := RandomShapeProblem(seed, 60, t)
			cases = append(cases, Case{p.Name, p})
		}
	}
	for seed := range uint64(ReusePerCorpus) {
		p := RandomReuseProblem(seed, 40)
		cases = append(cases, Case{p.Name, p})
	}
	return cases
}

// RandomShapeProblem returns a random problem of size type t (2d, 3d or
// bhwc) of at most maxN records: extents drawn from a small palette (so
// that objects are reused) or up to 2^12, sometimes 0, lifetimes as
// RandomProblem draws them, in order of first task or not, and an element
// size of 1, 2, 4, 8 or 16 bytes. The same seed gives the same problem.
func RandomShapeProblem(seed uint64, maxN int, t workloads.SizeType) *workloads.Problem {
	rng := rand.New(rand.NewPCG(seed, 0x5a9e))
	base := RandomProblem(seed, maxN)
	palette := []int64{1, 2, 4, 4, 8, 16, 32}
	wide := rng.IntN(2) == 0
	shapes := make([]workloads.Shape, len(base.Buffers))
	for i := range shapes {
		for d := range t.Dims() {
			switch {
			case rng.IntN(20) == 0:
				shapes[i][d] = 0
			case wide:
				shapes[i][d] = 1 + rng.Int64N(1<<12)
			default:
				shapes[i][d] = palette[rng.IntN(len(palette))]
			}
		}
	}
	elem := []int64{1, 2, 4, 8, 16}[rng.IntN(5)]
	p, err := workloads.NewShapeProblem(fmt.Sprintf("random-%s?seed=%d&max_n=%d", t, seed, maxN), t, elem, shapes, base.Buffers)
	if err != nil {
		panic("strategytest: " + err.Error()) // extents of at most 2^12 cannot overflow
	}
	return p
}

// RandomReuseProblem returns RandomProblem(seed, maxN) without alignment
// and with TFLite's reallocation graph (workloads.ReallocationGraph) of a
// random dependency graph: each record feeds up to three later ones.
func RandomReuseProblem(seed uint64, maxN int) *workloads.Problem {
	rng := rand.New(rand.NewPCG(seed, 0x4e05e))
	p := RandomProblem(seed, maxN)
	p.Name = fmt.Sprintf("random-reuse?seed=%d&max_n=%d", seed, maxN)
	p.Alignment = 0
	n := len(p.Buffers)
	deps := make([][]int, n)
	for i := range deps {
		for range rng.IntN(4) {
			if j := i + 1 + rng.IntN(n); j < n && !slices.Contains(deps[i], j) {
				deps[i] = append(deps[i], j)
			}
		}
	}
	p.Reuse = workloads.ReallocationGraph(deps)
	return p
}

// CheckSizeType plans p, a problem of any size type, with s, built by
// strategies.Lookup or Declare: where s plans p's size type, the plan
// must pass Check; where it does not, s must refuse p with
// strategies.ErrUnsupportedSizeType and TFLite's own words, "NAME: 2d
// sizes: MemoryStrategy is not supported with current tensor size type.".
// A strategy built otherwise is not checked.
func CheckSizeType(s strategies.Strategy, kind strategies.Kind, p *workloads.Problem) error {
	types, ok := strategies.DeclaredSizeTypes(s)
	if !ok {
		return nil
	}
	if slices.Contains(types, p.SizeType) {
		return Check(s, kind, p)
	}
	_, err := safePlan(context.Background(), s, p)
	base, _, _ := strings.Cut(s.Name(), "?")
	want := fmt.Sprintf("%s: %s sizes: %v", base, p.SizeType, strategies.ErrUnsupportedSizeType)
	if !errors.Is(err, strategies.ErrUnsupportedSizeType) || err.Error() != want {
		return fmt.Errorf("%s on %s: got error %v, want %q (it plans %v)", s.Name(), Describe(p), err, want, types)
	}
	return nil
}

// checkShapeCorpus runs CheckSizeType on ShapeCorpus, and requires a
// strategy planning textures or BHWC shapes to stop on a cancelled
// context there too.
func checkShapeCorpus(s strategies.Strategy, kind strategies.Kind) []error {
	var errs []error
	for _, c := range ShapeCorpus() {
		if err := CheckSizeType(s, kind, c.Problem); err != nil {
			errs = append(errs, err)
		}
	}
	types, _ := strategies.DeclaredSizeTypes(s)
	for _, t := range types {
		if t == workloads.SizeBytes {
			continue
		}
		p := synthetic.Textures(synthetic.TexturesConfig{N: 1000, Seed: 2, Type: t})
		ctx := ctxcount.New(1)
		if _, err := safePlan(ctx, s, p); !errors.Is(err, context.Canceled) || ctx.After() > MaxLooksAfter {
			errs = append(errs, fmt.Errorf("%s on %s with a cancelled context: got error %v after %d more looks, want context.Canceled within %d",
				s.Name(), Describe(p), err, ctx.After(), MaxLooksAfter))
		}
	}
	return errs
}
