package synthetic

import (
	"fmt"

	"membench/workloads"
)

// IntervalsConfig parameterises RandomIntervals.
type IntervalsConfig struct {
	N    int
	Seed int64
	// Tasks is the horizon: every First is uniform in [0, Tasks).
	Tasks int
	// MaxLen bounds lifetimes, drawn log-uniformly in [1, MaxLen] tasks.
	MaxLen           int
	MinSize, MaxSize int64
}

// Validate reports the first field out of range.
func (c IntervalsConfig) Validate() error {
	if err := checkN(c.N); err != nil {
		return err
	}
	if c.Tasks < 1 || c.Tasks > MaxN {
		return fmt.Errorf("tasks=%d must be in [1, %d]", c.Tasks, MaxN)
	}
	if c.MaxLen < 1 {
		return fmt.Errorf("maxlen=%d must be >= 1", c.MaxLen)
	}
	return checkSizes(c.MinSize, c.MaxSize, 4, 0)
}

// RandomIntervals generates lifetimes not tied to any graph: each buffer
// starts at a uniform task, lives a log-uniform number of tasks in
// [1, MaxLen] (cut at the horizon), with a log-uniform size. Buffers are
// returned sorted by First (stable, counting sort), ID = index.
func RandomIntervals(c IntervalsConfig) *workloads.Problem {
	if err := c.Validate(); err != nil {
		panic("synthetic.RandomIntervals: " + err.Error())
	}
	r := newRNG(c.Seed, familyIntervals)
	sz, _ := newSizer(r, c.MinSize, c.MaxSize, 4, 0)
	lens, _ := newSizer(r, 1, int64(c.MaxLen), 1, 0)
	bufs := make([]workloads.Buffer, c.N)
	for i := range bufs {
		first := r.intn(c.Tasks)
		last := min(first+int(lens.draw(r))-1, c.Tasks-1)
		bufs[i] = workloads.Buffer{Size: sz.draw(r), First: first, Last: last}
	}
	return &workloads.Problem{
		Name: fmt.Sprintf("synthetic/random-intervals?n=%d&seed=%d&tasks=%d&maxlen=%d&min=%d&max=%d",
			c.N, c.Seed, c.Tasks, c.MaxLen, c.MinSize, c.MaxSize),
		Buffers: sortByFirst(bufs, c.Tasks),
	}
}

func (c IntervalsConfig) generate() *workloads.Problem { return RandomIntervals(c) }

func init() {
	params := append(append(baseParams("1000"), sizeParams("1K", "64M")...),
		workloads.ParamDoc{Name: "tasks", Default: "n", Doc: "horizon: first tasks are uniform in [0, tasks)"},
		workloads.ParamDoc{Name: "maxlen", Default: "64", Doc: "longest lifetime in tasks (lengths log-uniform in [1, maxlen])"})
	register("synthetic/random-intervals",
		"lifetimes not tied to a graph: uniform starts, log-uniform lengths and sizes",
		params, func(a *workloads.Args) family {
			n := a.Int("n", 1000)
			return IntervalsConfig{
				N:       n,
				Seed:    a.Int64("seed", 1),
				Tasks:   a.Int("tasks", max(n, 1)),
				MaxLen:  a.Int("maxlen", 64),
				MinSize: a.Bytes("min", 1<<10),
				MaxSize: a.Bytes("max", 64<<20),
			}
		})
}
