// Package synthetic generates problems with known shapes: graph-like
// random DAGs, chains, free-floating intervals, few-size workloads and
// adversarial instances for greedy planners. Every family registers itself
// in the workloads registry under "synthetic/...".
//
// Generators are deterministic for given parameters across runs and
// machines: randomness comes only from a PCG stream (whose output the Go
// standard library specifies) through the integer helpers below, and sizes
// are computed with IEEE-exact operations only (multiply, square root), so
// no platform-dependent math library routine decides a result.
package synthetic

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"membench/workloads"
)

// MaxN is the largest buffer count a family accepts (32 bytes a buffer:
// 3.2 GB of records at the limit).
const MaxN = 100_000_000

// rng draws integers from a PCG stream. It uses only PCG.Uint64, whose
// sequence is fixed by the algorithm, not the derived methods of rand.Rand.
type rng struct{ src *rand.PCG }

// newRNG seeds a PCG stream; family keeps families with equal seeds apart.
func newRNG(seed int64, family uint64) rng {
	return rng{rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15^family)}
}

// intn returns an integer in [0, n) by multiply-shift (bias below 2^-40
// for the n used here). n must be > 0.
func (r rng) intn(n int) int {
	hi, _ := bits.Mul64(r.src.Uint64(), uint64(n))
	return int(hi)
}

// int64n returns an integer in [0, n); n must be > 0.
func (r rng) int64n(n int64) int64 {
	hi, _ := bits.Mul64(r.src.Uint64(), uint64(n))
	return int64(hi)
}

// between returns an integer in [lo, hi].
func (r rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// chance reports true with probability perMille/1000.
func (r rng) chance(perMille int) bool { return r.intn(1000) < perMille }

// sizer draws byte sizes log-uniformly in [min, max], as multiples of elem,
// or uniformly from a fixed set of distinct sizes.
type sizer struct {
	elem   int64
	lo, hi int64 // bounds in elements
	// coarse[h] = (hi/lo)^(h/4096), fine[l] = (hi/lo)^(l/2^24): a 24-bit
	// uniform exponent u = h<<12|l gives lo*(hi/lo)^(u/2^24).
	coarse, fine *[4096]float64
	fixed        []int64
}

const sizerBits = 12

// newSizer checks the range and builds the tables. With k > 0 it picks k
// distinct sizes from the log-uniform law and draws uniformly among them.
func newSizer(r rng, minSize, maxSize, elem int64, k int) (*sizer, error) {
	if err := checkSizes(minSize, maxSize, elem, k); err != nil {
		return nil, err
	}
	s := &sizer{elem: elem, lo: (minSize + elem - 1) / elem, hi: maxSize / elem}
	// root[i] = ratio^(2^-i), by repeated exactly rounded square roots.
	var root [2*sizerBits + 1]float64
	root[0] = float64(s.hi) / float64(s.lo)
	for i := 1; i < len(root); i++ {
		root[i] = math.Sqrt(root[i-1])
	}
	s.coarse, s.fine = new([4096]float64), new([4096]float64)
	for j := range 1 << sizerBits {
		c, f := 1.0, 1.0
		for b := range sizerBits {
			if j>>b&1 == 1 {
				c *= root[sizerBits-b]
				f *= root[2*sizerBits-b]
			}
		}
		s.coarse[j], s.fine[j] = c, f
	}
	if k > 0 {
		s.fixed = s.pickDistinct(r, k)
	}
	return s, nil
}

// MaxK is the most distinct sizes a family accepts.
const MaxK = 1 << 20

// checkSizes rejects a size range that holds no multiple of elem or fewer
// than k of them.
func checkSizes(minSize, maxSize, elem int64, k int) error {
	if elem < 1 {
		return fmt.Errorf("element size %d must be >= 1", elem)
	}
	if minSize < 1 || maxSize < minSize {
		return fmt.Errorf("size range [%d, %d] must satisfy 1 <= min <= max", minSize, maxSize)
	}
	lo, hi := (minSize+elem-1)/elem, maxSize/elem
	if hi < lo {
		return fmt.Errorf("size range [%d, %d] holds no multiple of %d", minSize, maxSize, elem)
	}
	if k < 0 || k > MaxK {
		return fmt.Errorf("k=%d must be in [0, %d]", k, MaxK)
	}
	if k > 0 && int64(k)-1 > hi-lo {
		return fmt.Errorf("k=%d distinct sizes do not fit in [%d, %d] in steps of %d", k, minSize, maxSize, elem)
	}
	return nil
}

// pickDistinct draws k distinct sizes; if the law keeps repeating itself
// (a range barely wider than k) it fills up with the smallest unused sizes.
func (s *sizer) pickDistinct(r rng, k int) []int64 {
	seen := make(map[int64]bool, k)
	out := make([]int64, 0, k)
	for try := 0; len(out) < k && try < 64*k; try++ {
		if v := s.logUniform(r); !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	for e := s.lo; len(out) < k; e++ {
		if v := e * s.elem; !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// logUniform returns one size drawn log-uniformly.
func (s *sizer) logUniform(r rng) int64 {
	u := r.src.Uint64() >> (64 - 2*sizerBits)
	x := float64(s.lo) * s.coarse[u>>sizerBits] * s.fine[u&(1<<sizerBits-1)]
	e := int64(x)
	e = min(max(e, s.lo), s.hi)
	return e * s.elem
}

// draw returns the next size.
func (s *sizer) draw(r rng) int64 {
	if s.fixed != nil {
		return s.fixed[r.intn(len(s.fixed))]
	}
	return s.logUniform(r)
}

// checkN rejects buffer counts outside [0, MaxN].
func checkN(n int) error {
	if n < 0 || n > MaxN {
		return fmt.Errorf("n=%d must be in [0, %d]", n, MaxN)
	}
	return nil
}

// usage turns a configuration error into a UsageError naming the workload.
func usage(name string, err error) error {
	return workloads.Usagef("%s: %v", name, err)
}

// sortByFirst returns the buffers stably ordered by First, renumbered so
// that ID = index; every First must lie in [0, tasks).
func sortByFirst(bufs []workloads.Buffer, tasks int) []workloads.Buffer {
	out := countingSort(bufs, tasks, func(b workloads.Buffer) int { return b.First })
	for i := range out {
		out[i].ID = i
	}
	return out
}

// countingSort returns xs stably ordered by key, in O(len(xs) + keys);
// every key must lie in [0, keys).
func countingSort[T any](xs []T, keys int, key func(T) int) []T {
	start := make([]int, keys+1)
	for _, x := range xs {
		start[key(x)+1]++
	}
	for k := 1; k <= keys; k++ {
		start[k] += start[k-1]
	}
	out := make([]T, len(xs))
	for _, x := range xs {
		k := key(x)
		out[start[k]] = x
		start[k]++
	}
	return out
}

// sizeParams documents the size-range parameters most families take.
func sizeParams(defMin, defMax string) []workloads.ParamDoc {
	return []workloads.ParamDoc{
		{Name: "min", Default: defMin, Doc: "smallest size in bytes (log-uniform, multiples of 4)"},
		{Name: "max", Default: defMax, Doc: "largest size in bytes"},
	}
}

// baseParams documents n and seed.
func baseParams(defN string) []workloads.ParamDoc {
	return []workloads.ParamDoc{
		{Name: "n", Default: defN, Doc: "number of tensors"},
		{Name: "seed", Default: "1", Doc: "random seed"},
	}
}

// family is a parsed configuration of one generator.
type family interface {
	Validate() error
	generate() *workloads.Problem
}

// register adds a family to the workload registry: parse reads the
// parameters; unknown or malformed ones are reported before range errors,
// and nothing is generated until all are good.
func register(name, doc string, params []workloads.ParamDoc, parse func(*workloads.Args) family) {
	workloads.Register(workloads.Info{
		Name: name, Doc: doc, Params: params,
		New: func(a *workloads.Args) (*workloads.Problem, error) {
			f := parse(a)
			if err := a.Check(params); err != nil {
				return nil, err
			}
			if err := f.Validate(); err != nil {
				return nil, usage(name, err)
			}
			return f.generate(), nil
		},
	})
}
