package synthetic

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"membench/workloads"
)

// Distributions of the address cuts of a tiling (TilingConfig.Sizes), in
// the order of OmniMalloc's size families, flattest to most skewed.
var Distributions = []string{"uniform", "log-uniform", "zipf", "bimodal", "dominant"}

// TilingConfig parameterises Tiling: a Tasks x Capacity rectangle (time x
// address) cut into N blocks, each a buffer.
type TilingConfig struct {
	N    int
	Seed int64
	// Tasks is the time extent of the rectangle.
	Tasks int
	// Capacity is its width in bytes: LB_load and the optimum.
	Capacity int64
	// Min is the smallest size an address cut leaves.
	Min int64
	// Sizes is the distribution of address cuts, one of Distributions.
	Sizes string
	// DominantPercent is the dominant buffer's share of Capacity when Sizes
	// is "dominant".
	DominantPercent int
	// Pinwheel cuts blocks into pinwheels (non-guillotine) where it can.
	Pinwheel bool
	// TimeCutPerMille is the chance, in 1/1000, that a guillotine cut
	// splits a block in time rather than in address.
	TimeCutPerMille int
}

// DefaultTiling returns the default configuration of a guillotine tiling
// of n buffers: n tasks, 1 MiB, log-uniform cuts of at least 256 bytes.
func DefaultTiling(n int, seed int64) TilingConfig {
	return TilingConfig{N: n, Seed: seed, Tasks: max(n, 3), Capacity: 1 << 20, Min: 256,
		Sizes: "log-uniform", DominantPercent: 90, TimeCutPerMille: 500}
}

// dominant is the dominant buffer's size, 0 unless Sizes is "dominant".
func (c TilingConfig) dominant() int64 {
	if c.Sizes != "dominant" {
		return 0
	}
	return c.Capacity/100*int64(c.DominantPercent) + c.Capacity%100*int64(c.DominantPercent)/100
}

// Validate reports the first field out of range.
func (c TilingConfig) Validate() error {
	if err := checkN(c.N); err != nil {
		return err
	}
	if c.Tasks < 1 || c.Tasks > MaxN {
		return fmt.Errorf("tasks=%d must be in [1, %d]", c.Tasks, MaxN)
	}
	if c.Min < 1 || c.Capacity < c.Min {
		return fmt.Errorf("min=%d must be in [1, capacity=%d]", c.Min, c.Capacity)
	}
	if !slices.Contains(Distributions, c.Sizes) {
		return fmt.Errorf("sizes=%q: want one of %v", c.Sizes, Distributions)
	}
	if c.DominantPercent < 1 || c.DominantPercent > 99 {
		return fmt.Errorf("dominant=%d must be in [1, 99] (percent of capacity)", c.DominantPercent)
	}
	if c.TimeCutPerMille < 0 || c.TimeCutPerMille > 1000 {
		return fmt.Errorf("time-cut=%d must be in [0, 1000]", c.TimeCutPerMille)
	}
	free := c.Capacity - c.dominant()
	if c.Sizes == "dominant" {
		if c.Tasks < 3 || c.N < 4 || c.dominant() < 1 || free < c.Min {
			return fmt.Errorf("sizes=dominant needs tasks >= 3, n >= 4, a dominant buffer of at least 1 byte and capacity - dominant >= min=%d", c.Min)
		}
	}
	// A block that can be cut no further is one task long and at most
	// 2*min-1 wide, so cutting never stops short of this many blocks.
	if cells := free / (2*c.Min - 1); cells <= math.MaxInt64/int64(c.Tasks) && int64(c.N) > max(int64(c.Tasks)*cells, 1) {
		return fmt.Errorf("n=%d exceeds the %d blocks that tasks x capacity surely holds with cuts of at least min=%d bytes",
			c.N, max(int64(c.Tasks)*cells, 1), c.Min)
	}
	return nil
}

// Tiling generates an instance whose optimum is known by construction:
// the Tasks x Capacity rectangle (time x address) cut into exactly N
// blocks that tile it with no slack. Block [t0, t1) x [a0, a1) is a buffer
// of size a1-a0 live over tasks [t0, t1-1]. Exactly Capacity bytes are
// live at every task, so LB_load = Capacity, and the planted offsets a0
// (returned) reach it: the optimum is Capacity.
//
// Blocks are cut oldest first (breadth first, as AdversarialGreedy does,
// so that blocks of one generation are alike in area). A guillotine cut
// runs edge to edge: in time with chance TimeCutPerMille/1000 at a
// uniform task, else in address, where one side, above or below at random,
// gets a size drawn from Sizes within [Min, width-Min]:
//
//   - uniform: uniform;
//   - log-uniform: an octave [2^k, 2^(k+1)) drawn uniformly, then a size
//     uniformly within it (clipped to the range);
//   - zipf: octave k above Min drawn with chance 2^-(k+1), a Pareto tail of
//     index 1, then uniformly within it;
//   - bimodal: 90% uniform in [Min, sqrt(Min*width)], else above it;
//   - dominant: one buffer of DominantPercent of Capacity, live over a
//     random middle span of the run, and uniform cuts everywhere else.
//
// With Pinwheel, a block at least 3 tasks long and 3*Min wide is cut
// instead into a pinwheel (OmniMalloc's non-guillotine split): four blades
// around a centre, so that no straight cut crosses the block; a blade is p
// tasks long (uniform in [1, (len-1)/2]) and q bytes thick (drawn from
// Sizes within [Min, (width-Min)/2]). Guillotine cuts then make up the
// last blocks where a pinwheel's four new blocks would overshoot N.
//
// Buffers are sorted by First (stable), ID = index; offsets[i] is buffer
// i's planted offset. O(N + Tasks) time and memory.
func Tiling(c TilingConfig) (*workloads.Problem, []int64) {
	if err := c.Validate(); err != nil {
		panic("synthetic.Tiling: " + err.Error())
	}
	stream := familyTiling
	if c.Pinwheel {
		stream = familyPinwheel
	}
	r := newRNG(c.Seed, stream)
	draw := c.drawer()
	canTime := func(b block) bool { return b.t1-b.t0 >= 2 }
	canAddr := func(b block) bool { return b.a1-b.a0 >= 2*c.Min }
	canPin := func(b block) bool { return c.Pinwheel && b.t1-b.t0 >= 3 && b.a1-b.a0 >= 3*c.Min }
	blocks := make([]block, 0, c.N)
	var queue []int32 // blocks that can still be cut, oldest first
	push := func(b block) {
		blocks = append(blocks, b)
		if canTime(b) || canAddr(b) {
			queue = append(queue, int32(len(blocks)-1))
		}
	}
	if dom := c.dominant(); dom > 0 {
		// The dominant buffer spans a random middle part of the run under
		// the free band; the blocks before and after it are cut as usual.
		a := 1 + r.intn((c.Tasks-1)/2)
		b := c.Tasks - 1 - r.intn(c.Tasks-1-a)
		blocks = append(blocks, block{a, b, 0, dom}) // never queued
		push(block{0, a, 0, dom})
		push(block{b, c.Tasks, 0, dom})
		push(block{0, c.Tasks, dom, c.Capacity})
	} else if c.N > 0 {
		push(block{0, c.Tasks, 0, c.Capacity})
	}
	for head := 0; len(blocks) < c.N; head++ {
		i := queue[head]
		x := blocks[i]
		if canPin(x) && c.N-len(blocks) >= 4 {
			p := 1 + r.intn((x.t1-x.t0-1)/2)
			q := draw(r, c.Min, (x.a1-x.a0-c.Min)/2, x.a1-x.a0)
			blocks[i] = block{x.t0, x.t1 - p, x.a0, x.a0 + q} // bottom
			push(block{x.t1 - p, x.t1, x.a0, x.a1 - q})       // right
			push(block{x.t0 + p, x.t1, x.a1 - q, x.a1})       // top
			push(block{x.t0, x.t0 + p, x.a0 + q, x.a1})       // left
			push(block{x.t0 + p, x.t1 - p, x.a0 + q, x.a1 - q})
		} else {
			y, z := x, x
			if canTime(x) && (!canAddr(x) || r.chance(c.TimeCutPerMille)) {
				y.t1 = x.t0 + 1 + r.intn(x.t1-x.t0-1)
				z.t0 = y.t1
			} else {
				s := draw(r, c.Min, x.a1-x.a0-c.Min, x.a1-x.a0)
				if r.chance(500) {
					s = x.a1 - x.a0 - s
				}
				y.a1 = x.a0 + s
				z.a0 = y.a1
			}
			blocks[i] = y
			push(z)
		}
		if y := blocks[i]; canTime(y) || canAddr(y) {
			queue = append(queue, i)
		}
	}
	bufs, offsets := blockBuffers(blocks, c.Tasks)
	return &workloads.Problem{Name: c.name(), Buffers: bufs, Capacity: c.Capacity}, offsets
}

// name is the spec that regenerates the instance, every parameter spelled.
func (c TilingConfig) name() string {
	family := "tiling"
	if c.Pinwheel {
		family = "pinwheel"
	}
	s := fmt.Sprintf("synthetic/%s?n=%d&seed=%d&sizes=%s&tasks=%d&capacity=%d&min=%d",
		family, c.N, c.Seed, c.Sizes, c.Tasks, c.Capacity, c.Min)
	if c.Sizes == "dominant" {
		s += fmt.Sprintf("&dominant=%d", c.DominantPercent)
	}
	return s + fmt.Sprintf("&time-cut=%d", c.TimeCutPerMille)
}

// drawer returns the law of c.Sizes: draw(r, lo, hi, width) is a size in
// [lo, hi] (lo <= hi) for a cut of a block width bytes wide. Only integer
// operations and an exactly rounded square root decide a draw.
func (c TilingConfig) drawer() func(r rng, lo, hi, width int64) int64 {
	uniform := func(r rng, lo, hi int64) int64 { return lo + r.int64n(hi-lo+1) }
	// octave draws uniformly within octave [2^k, 2^(k+1)) of [lo, hi].
	octave := func(r rng, lo, hi int64, k int) int64 {
		return uniform(r, max(lo, int64(1)<<k), min(hi, int64(1)<<(k+1)-1))
	}
	switch c.Sizes {
	case "log-uniform":
		return func(r rng, lo, hi, _ int64) int64 {
			k0, k1 := bits.Len64(uint64(lo))-1, bits.Len64(uint64(hi))-1
			return octave(r, lo, hi, k0+r.intn(k1-k0+1))
		}
	case "zipf":
		return func(r rng, lo, hi, _ int64) int64 {
			k0, k1 := bits.Len64(uint64(lo))-1, bits.Len64(uint64(hi))-1
			for {
				// Trailing zeros of a uniform word: k with chance 2^-(k+1).
				if k := k0 + bits.TrailingZeros64(r.src.Uint64()|1<<63); k <= k1 {
					return octave(r, lo, hi, k)
				}
			}
		}
	case "bimodal":
		return func(r rng, lo, hi, width int64) int64 {
			mid := min(max(int64(math.Sqrt(float64(lo)*float64(width))), lo), hi)
			if r.chance(900) {
				return uniform(r, lo, mid)
			}
			return uniform(r, mid, hi)
		}
	default: // uniform, and the small cuts around a dominant buffer
		return func(r rng, lo, hi, _ int64) int64 { return uniform(r, lo, hi) }
	}
}

func (c TilingConfig) generate() *workloads.Problem {
	p, _ := Tiling(c)
	return p
}

func init() {
	type variant struct {
		name, doc   string
		pinwheel    bool
		contention  bool
		defTasks    string
		defTimeCuts int
	}
	for _, v := range []variant{
		{"tiling", "guillotine tiling with no slack (tasks x capacity cut edge to edge): optimum = LB_load = capacity",
			false, false, "n", 500},
		{"pinwheel", "non-guillotine tiling with no slack (pinwheels: four blades around a centre): optimum = LB_load = capacity",
			true, false, "n", 500},
		{"tiling-contention", "high-contention guillotine tiling (few tasks, mostly address cuts: tens of buffers live at once); optimum = LB_load = capacity",
			false, true, "n/64", 200},
		{"pinwheel-contention", "high-contention pinwheel tiling (few tasks: tens of buffers live at once); optimum = LB_load = capacity",
			true, true, "n/64", 200},
	} {
		params := append(baseParams("1000"),
			workloads.ParamDoc{Name: "sizes", Default: "log-uniform", Doc: "law of the address cuts: uniform, log-uniform, zipf, bimodal or dominant"},
			workloads.ParamDoc{Name: "tasks", Default: v.defTasks + " (at least 3)", Doc: "time extent of the tiling"},
			workloads.ParamDoc{Name: "capacity", Default: "1M", Doc: "width of the tiling in bytes: the optimum and LB_load"},
			workloads.ParamDoc{Name: "min", Default: "256", Doc: "smallest size an address cut leaves, in bytes"},
			workloads.ParamDoc{Name: "dominant", Default: "90", Doc: "with sizes=dominant, the dominant buffer's share of capacity in percent"})
		params = append(params, workloads.ParamDoc{Name: "time-cut", Default: fmt.Sprint(v.defTimeCuts),
			Doc: "chance in 1/1000 that a guillotine cut is in time rather than in address"})
		register("synthetic/"+v.name, v.doc, params, func(a *workloads.Args) family {
			n := a.Int("n", 1000)
			c := DefaultTiling(n, a.Int64("seed", 1))
			c.Pinwheel = v.pinwheel
			if v.contention {
				c.Tasks = max(n/64, 3)
			}
			c.Sizes = a.String("sizes", c.Sizes)
			c.Tasks = a.Int("tasks", c.Tasks)
			c.Capacity = a.Bytes("capacity", c.Capacity)
			c.Min = a.Bytes("min", c.Min)
			c.DominantPercent = a.Int("dominant", c.DominantPercent)
			c.TimeCutPerMille = a.Int("time-cut", v.defTimeCuts)
			return c
		})
	}
}
