package synthetic

import (
	"fmt"
	"math"

	"membench/workloads"
)

// AdversarialConfig parameterises AdversarialGreedy.
type AdversarialConfig struct {
	N    int
	Seed int64
	// Tasks is the time extent of the packing (default N).
	Tasks int
	// Capacity is the width of the packing in bytes: the optimum and the
	// lower bound (default 1 MiB, the capacity of MiniMalloc's instances).
	Capacity int64
	// TimeCutPerMille is the chance, in 1/1000, that a cut splits a block in
	// time rather than in address (default 700).
	TimeCutPerMille int
}

// DefaultAdversarial returns the default configuration for n buffers.
func DefaultAdversarial(n int, seed int64) AdversarialConfig {
	return AdversarialConfig{N: n, Seed: seed, Tasks: max(n, 1), Capacity: 1 << 20, TimeCutPerMille: 700}
}

// Validate reports the first field out of range.
func (c AdversarialConfig) Validate() error {
	if err := checkN(c.N); err != nil {
		return err
	}
	if c.Tasks < 1 || c.Tasks > MaxN {
		return fmt.Errorf("tasks=%d must be in [1, %d]", c.Tasks, MaxN)
	}
	if c.Capacity < 1 {
		return fmt.Errorf("capacity=%d must be >= 1", c.Capacity)
	}
	if c.Capacity <= math.MaxInt64/int64(c.Tasks) && int64(c.N) > int64(c.Tasks)*c.Capacity {
		return fmt.Errorf("n=%d exceeds the %d task-byte cells of tasks x capacity", c.N, int64(c.Tasks)*c.Capacity)
	}
	if c.TimeCutPerMille < 0 || c.TimeCutPerMille > 1000 {
		return fmt.Errorf("time-cut chance %d must be in [0, 1000]", c.TimeCutPerMille)
	}
	return nil
}

// block is a rectangle of the packing: tasks [t0, t1), bytes [a0, a1).
type block struct {
	t0, t1 int
	a0, a1 int64
}

// AdversarialGreedy generates a planted perfect packing, the kind of
// instance on which greedy planners are known to do badly (MiniMalloc's
// "challenging" instances are of this kind; greedy by size needs
// 1.28-1.41x the lower bound there).
//
// Construction: start from one block covering Tasks x Capacity (time x
// address) and cut blocks in two at a uniform point, in time with chance
// TimeCutPerMille/1000 else in address (guillotine cuts), oldest block
// first, until there are N blocks; cutting breadth-first keeps the blocks
// of one generation alike in area, which makes the instances consistently
// hard (cutting random blocks instead gives a few huge blocks and a wide
// spread of greedy's ratio). A block one task and one byte big is not cut.
// Each block is a buffer: lifetime [t0, t1-1], size a1-a0. The
// blocks tile the rectangle, so exactly Capacity bytes are live at every
// task: LB_load = Capacity, and the planted offsets a0 (returned) reach it,
// so the optimum equals the lower bound.
//
// Why greedy fails: the packing is tight at every task, so only the
// planted layout and a few like it reach the optimum, and in them big
// blocks sit at every height. Greedy by size places the biggest buffers
// first, each in the smallest gap free for its whole lifetime, blind to the
// smaller buffers to come: it separates blocks that the packing keeps side
// by side, leaving gaps too small or too short-lived for what follows,
// which then goes on top. With the defaults
// TFLite's offset greedy-by-size needs 1.25-1.6x the optimum (median 1.42
// over seeds 1-20 at n = 1000).
//
// Buffers are sorted by First (stable), ID = index; offsets[i] is buffer
// i's planted offset. O(N + Tasks) time and memory.
func AdversarialGreedy(c AdversarialConfig) (*workloads.Problem, []int64) {
	if err := c.Validate(); err != nil {
		panic("synthetic.AdversarialGreedy: " + err.Error())
	}
	r := newRNG(c.Seed, familyAdversarial)
	splittable := func(b block) bool { return b.t1-b.t0 >= 2 || b.a1-b.a0 >= 2 }
	blocks := make([]block, 0, c.N)
	var queue []int32 // blocks that can still be cut, oldest first
	if c.N > 0 {
		blocks = append(blocks, block{0, c.Tasks, 0, c.Capacity})
		if splittable(blocks[0]) {
			queue = append(queue, 0)
		}
	}
	for head := 0; len(blocks) < c.N; head++ {
		i := queue[head]
		x := blocks[i]
		y, z := x, x
		canT, canA := x.t1-x.t0 >= 2, x.a1-x.a0 >= 2
		if canT && (!canA || r.chance(c.TimeCutPerMille)) {
			y.t1 = x.t0 + 1 + r.intn(x.t1-x.t0-1)
			z.t0 = y.t1
		} else {
			y.a1 = x.a0 + 1 + r.int64n(x.a1-x.a0-1)
			z.a0 = y.a1
		}
		blocks[i] = y
		blocks = append(blocks, z)
		if splittable(y) {
			queue = append(queue, i)
		}
		if splittable(z) {
			queue = append(queue, int32(len(blocks)-1))
		}
	}
	bufs, offsets := blockBuffers(blocks, c.Tasks)
	return &workloads.Problem{
		Name: fmt.Sprintf("synthetic/adversarial-greedy?n=%d&seed=%d&tasks=%d&capacity=%d",
			c.N, c.Seed, c.Tasks, c.Capacity),
		Buffers:  bufs,
		Capacity: c.Capacity,
	}, offsets
}

// blockBuffers turns the blocks of a packing into buffers sorted by First
// (stable), ID = index, and their planted offsets: block [t0, t1) x
// [a0, a1) is a buffer of a1-a0 bytes live over tasks [t0, t1-1] at a0.
func blockBuffers(blocks []block, tasks int) ([]workloads.Buffer, []int64) {
	blocks = countingSort(blocks, tasks, func(b block) int { return b.t0 })
	bufs := make([]workloads.Buffer, len(blocks))
	offsets := make([]int64, len(blocks))
	for i, b := range blocks {
		bufs[i] = workloads.Buffer{ID: i, Size: b.a1 - b.a0, First: b.t0, Last: b.t1 - 1}
		offsets[i] = b.a0
	}
	return bufs, offsets
}

func (c AdversarialConfig) generate() *workloads.Problem {
	p, _ := AdversarialGreedy(c)
	return p
}

func init() {
	params := append(baseParams("1000"),
		workloads.ParamDoc{Name: "tasks", Default: "n", Doc: "time extent of the planted packing"},
		workloads.ParamDoc{Name: "capacity", Default: "1M", Doc: "width of the packing in bytes: the optimum and LB_load"})
	register("synthetic/adversarial-greedy",
		"planted perfect packing (random guillotine cuts of tasks x capacity): optimum = LB_load = capacity, "+
			"greedy by size needs ~1.3-1.5x",
		params, func(a *workloads.Args) family {
			n := a.Int("n", 1000)
			c := DefaultAdversarial(n, a.Int64("seed", 1))
			c.Tasks = a.Int("tasks", c.Tasks)
			c.Capacity = a.Bytes("capacity", c.Capacity)
			return c
		})
}
