package synthetic

import (
	"fmt"

	"membench/workloads"
)

// RepeatedConfig parameterises RepeatedShapes.
type RepeatedConfig struct {
	N    int
	Seed int64
	// K is the number of distinct sizes (default 4).
	K int
	// Block is the number of tensors in the repeated block (default 32).
	Block            int
	MinSize, MaxSize int64
}

// Validate reports the first field out of range.
func (c RepeatedConfig) Validate() error {
	if err := checkN(c.N); err != nil {
		return err
	}
	if c.K < 1 {
		return fmt.Errorf("k=%d must be >= 1", c.K)
	}
	if c.Block < 1 || c.Block > 1<<20 {
		return fmt.Errorf("block=%d must be in [1, %d]", c.Block, 1<<20)
	}
	return checkSizes(c.MinSize, c.MaxSize, 4, c.K)
}

// RepeatedShapes generates a stack of identical layers, as in transformers
// and ResNet stages: one random block of Block tensors (RandomDAG's graph
// shape, sizes from only K distinct values, no long-lived tensors) is
// repeated until N tensors, each copy shifted by the block's op count, so
// equal sizes recur with equal lifetimes. That is where EQUALITY, which
// reuses an object only for a tensor of exactly its size, does well;
// lifetimes may reach into the next copies, as residuals do.
func RepeatedShapes(c RepeatedConfig) *workloads.Problem {
	if err := c.Validate(); err != nil {
		panic("synthetic.RepeatedShapes: " + err.Error())
	}
	r := newRNG(c.Seed, familyRepeated)
	sz, _ := newSizer(r, c.MinSize, c.MaxSize, 4, c.K)
	d := DefaultDAG(min(c.Block, max(c.N, 1)), c.Seed)
	d.LongPerMille = 0
	tmpl := make([]workloads.Buffer, d.N)
	ops := fillDAG(r, sz, d, tmpl) + 1
	bufs := make([]workloads.Buffer, c.N)
	last := 0
	for i := range bufs {
		t := tmpl[i%len(tmpl)]
		shift := i / len(tmpl) * ops
		bufs[i] = workloads.Buffer{ID: i, Size: t.Size, First: t.First + shift, Last: t.Last + shift}
		last = bufs[i].First
	}
	for i := range bufs {
		bufs[i].Last = min(bufs[i].Last, last)
	}
	return &workloads.Problem{
		Name: fmt.Sprintf("synthetic/repeated-shapes?n=%d&seed=%d&k=%d&block=%d&min=%d&max=%d",
			c.N, c.Seed, c.K, c.Block, c.MinSize, c.MaxSize),
		Buffers: bufs,
	}
}

func (c RepeatedConfig) generate() *workloads.Problem { return RepeatedShapes(c) }

func init() {
	params := append(append(baseParams("1000"), sizeParams("1K", "64M")...),
		workloads.ParamDoc{Name: "k", Default: "4", Doc: "number of distinct sizes"},
		workloads.ParamDoc{Name: "block", Default: "32", Doc: "tensors in the repeated block"})
	register("synthetic/repeated-shapes",
		"identical layers: one random block with k distinct sizes repeated, where EQUALITY matters",
		params, func(a *workloads.Args) family {
			return RepeatedConfig{
				N:       a.Int("n", 1000),
				Seed:    a.Int64("seed", 1),
				K:       a.Int("k", 4),
				Block:   a.Int("block", 32),
				MinSize: a.Bytes("min", 1<<10),
				MaxSize: a.Bytes("max", 64<<20),
			}
		})
}
