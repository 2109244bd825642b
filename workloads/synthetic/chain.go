package synthetic

import (
	"fmt"

	"membench/workloads"
)

// ChainConfig parameterises Chain.
type ChainConfig struct {
	N                int
	Seed             int64
	MinSize, MaxSize int64
}

// Validate reports the first field out of range.
func (c ChainConfig) Validate() error {
	if err := checkN(c.N); err != nil {
		return err
	}
	return checkSizes(c.MinSize, c.MaxSize, 4, 0)
}

// Chain generates a linear network: op i produces tensor i, which op i+1
// reads, so tensor i lives [i, i+1] (the shape of TFLite's chain test).
// Sizes are log-uniform in [MinSize, MaxSize], multiples of 4. LB_load is
// the largest sum of two neighbours, and two alternating stacks reach it.
func Chain(c ChainConfig) *workloads.Problem {
	if err := c.Validate(); err != nil {
		panic("synthetic.Chain: " + err.Error())
	}
	r := newRNG(c.Seed, familyChain)
	sz, _ := newSizer(r, c.MinSize, c.MaxSize, 4, 0)
	bufs := make([]workloads.Buffer, c.N)
	for i := range bufs {
		bufs[i] = workloads.Buffer{ID: i, Size: sz.draw(r), First: i, Last: i + 1}
	}
	return &workloads.Problem{
		Name:    fmt.Sprintf("synthetic/chain?n=%d&seed=%d&min=%d&max=%d", c.N, c.Seed, c.MinSize, c.MaxSize),
		Buffers: bufs,
	}
}

func (c ChainConfig) generate() *workloads.Problem { return Chain(c) }

func init() {
	params := append(baseParams("1000"), sizeParams("1K", "64M")...)
	register("synthetic/chain", "linear network: tensor i lives [i, i+1], log-uniform sizes",
		params, func(a *workloads.Args) family {
			return ChainConfig{
				N:       a.Int("n", 1000),
				Seed:    a.Int64("seed", 1),
				MinSize: a.Bytes("min", 1<<10),
				MaxSize: a.Bytes("max", 64<<20),
			}
		})
}
