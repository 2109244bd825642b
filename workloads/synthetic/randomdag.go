package synthetic

import (
	"fmt"

	"membench/workloads"
)

// DAGConfig parameterises RandomDAG. DefaultDAG fills in the defaults; the
// zero value is not usable (Outputs and Elem must be >= 1).
type DAGConfig struct {
	// N is the number of buffers (tensors).
	N    int
	Seed int64
	// MinSize and MaxSize bound the sizes in bytes, drawn log-uniformly
	// (default 1 KiB .. 64 MiB, the range of the TFLite rand_* fixtures).
	MinSize, MaxSize int64
	// K, when > 0, draws K distinct sizes once and every tensor uses one of
	// them uniformly; 0 keeps sizes continuous (default 0).
	K int
	// Outputs is the most outputs one op produces; each op produces
	// 1..Outputs, uniformly (default 1).
	Outputs int
	// Elem makes every size a multiple of it, the element size (default 4).
	Elem int64
	// SkipPerMille is the chance, in 1/1000, that a tensor also feeds an op
	// 8..64 ops later, a skip connection (default 100).
	SkipPerMille int
	// LongPerMille is the chance, in 1/1000, that a tensor lives 65..1024
	// ops, as weights of a shared layer or an early feature map reused at
	// the end do (default 5).
	LongPerMille int
}

// DefaultDAG returns the default configuration for n buffers and a seed.
func DefaultDAG(n int, seed int64) DAGConfig {
	return DAGConfig{
		N: n, Seed: seed,
		MinSize: 1 << 10, MaxSize: 64 << 20,
		Outputs: 1, Elem: 4,
		SkipPerMille: 100, LongPerMille: 5,
	}
}

// Validate reports the first field out of range.
func (c DAGConfig) Validate() error {
	if err := checkN(c.N); err != nil {
		return err
	}
	if c.Outputs < 1 {
		return fmt.Errorf("outputs=%d must be >= 1", c.Outputs)
	}
	if c.SkipPerMille < 0 || c.SkipPerMille > 1000 || c.LongPerMille < 0 || c.LongPerMille > 1000 {
		return fmt.Errorf("per-mille chances %d, %d must be in [0, 1000]", c.SkipPerMille, c.LongPerMille)
	}
	return checkSizes(c.MinSize, c.MaxSize, c.Elem, c.K)
}

// Spec returns the registry spec that reproduces the configuration when
// its unexposed fields hold their defaults.
func (c DAGConfig) Spec() string {
	return fmt.Sprintf("synthetic/random-dag?n=%d&seed=%d&min=%d&max=%d&k=%d&outputs=%d",
		c.N, c.Seed, c.MinSize, c.MaxSize, c.K, c.Outputs)
}

// RandomDAG generates the usage records of a random operator graph run in
// topological order, shaped like the TFLite fixtures' rand_* inputs: one
// op per task, each producing 1..Outputs tensors; a tensor is consumed by
// 1-3 nearby ops (each 1 op later, then each further op with chance 0.4,
// up to 8), sometimes also by a distant op (a skip connection), rarely
// lives hundreds of ops; lifetimes stop at the last op. Buffers come out
// sorted by First with ID = index. It runs in O(N) time and 32 bytes a
// buffer. It panics on a configuration Validate rejects.
func RandomDAG(cfg DAGConfig) *workloads.Problem {
	if err := cfg.Validate(); err != nil {
		panic("synthetic.RandomDAG: " + err.Error())
	}
	r := newRNG(cfg.Seed, familyDAG)
	sz, _ := newSizer(r, cfg.MinSize, cfg.MaxSize, cfg.Elem, cfg.K)
	bufs := make([]workloads.Buffer, cfg.N)
	last := fillDAG(r, sz, cfg, bufs)
	for i := range bufs {
		bufs[i].Last = min(bufs[i].Last, last)
	}
	return &workloads.Problem{Name: cfg.Spec(), Buffers: bufs}
}

// fillDAG writes the records of a random graph into bufs with ID = index
// and returns the last op; lifetimes may run past it.
func fillDAG(r rng, sz *sizer, cfg DAGConfig, bufs []workloads.Buffer) int {
	op, left := -1, 0
	for i := range bufs {
		if left == 0 {
			op++
			left = r.between(1, cfg.Outputs)
		}
		left--
		size := sz.draw(r)
		span := 0
		for c := r.between(1, 3); c > 0; c-- {
			d := 1
			for d < 8 && r.chance(400) {
				d++
			}
			span = max(span, d)
		}
		if r.chance(cfg.SkipPerMille) {
			span = max(span, r.between(8, 64))
		}
		if r.chance(cfg.LongPerMille) {
			span = max(span, r.between(65, 1024))
		}
		bufs[i] = workloads.Buffer{ID: i, Size: size, First: op, Last: op + span}
	}
	return op
}

// Stream selectors keep families with equal seeds on unrelated streams.
const (
	familyDAG uint64 = iota + 1
	familyChain
	familyIntervals
	familyRepeated
	familyAdversarial
	familyTiling
	familyPinwheel
	familyTextures
)

func (c DAGConfig) generate() *workloads.Problem { return RandomDAG(c) }

func init() {
	d := DefaultDAG(1000, 1)
	params := append(append(baseParams("1000"), sizeParams("1K", "64M")...),
		workloads.ParamDoc{Name: "k", Default: "0", Doc: "number of distinct sizes; 0 = continuous"},
		workloads.ParamDoc{Name: "outputs", Default: "1", Doc: "most outputs per op (each op has 1..outputs)"})
	register("synthetic/random-dag",
		"random operator graph in execution order, like TFLite's rand_* fixtures: one op per task, "+
			"tensors read by 1-3 nearby ops, 10% skip connections, rare long-lived tensors, log-uniform sizes",
		params, func(a *workloads.Args) family {
			c := d
			c.N = a.Int("n", d.N)
			c.Seed = a.Int64("seed", d.Seed)
			c.MinSize = a.Bytes("min", d.MinSize)
			c.MaxSize = a.Bytes("max", d.MaxSize)
			c.K = a.Int("k", d.K)
			c.Outputs = a.Int("outputs", d.Outputs)
			return c
		})
}
