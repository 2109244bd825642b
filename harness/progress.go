package harness

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/schollz/progressbar/v3"

	"membench/results"
)

// progress shows a bar with the failed cells and an ETA on a terminal,
// and a plain line every ten seconds otherwise.
type progress struct {
	bar   *progressbar.ProgressBar
	w     io.Writer
	total int
	jobs  int
	n     int
	start time.Time
	last  time.Time
	fails int
	cost  *costModel
}

func newProgress(o Options, todo []Cell) *progress {
	p := &progress{w: o.Progress, total: len(todo), jobs: max(o.Jobs, 1), start: time.Now(), last: time.Now(),
		cost: newCostModel(todo)}
	if p.w == nil {
		p.w = io.Discard
	}
	if o.Terminal && p.total > 0 {
		p.bar = progressbar.NewOptions(p.total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription("cells"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionClearOnFinish(),
		)
	} else {
		fmt.Fprintf(p.w, "membench: %d cells to run\n", p.total)
	}
	return p
}

// step counts a finished cell.
func (p *progress) step(c Cell, r results.Record, took time.Duration) {
	p.n++
	if r.Failed() {
		p.fails++
	}
	p.cost.done(c, took)
	eta := "unknown"
	if d, ok := p.cost.eta(min(p.jobs, max(p.total-p.n, 1))); ok {
		eta = d.Round(time.Second).String()
	}
	if p.bar != nil {
		p.bar.Describe(fmt.Sprintf("cells (%d failed, ETA %s)", p.fails, eta))
		p.bar.Add(1)
		return
	}
	if now := time.Now(); now.Sub(p.last) >= 10*time.Second || p.n == p.total {
		p.last = now
		fmt.Fprintf(p.w, "membench: %d/%d cells, %d failed, %v elapsed, ETA %s\n",
			p.n, p.total, p.fails, now.Sub(p.start).Round(time.Second), eta)
	}
}

func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}

// sizeUnits is the expected work of a cell on a workload of n buffers
// relative to other sizes: n log n, what sorting-based planners and
// allocator replays (n events, each a search) take. A subject's own rate
// (seconds per unit, measured) carries the rest: min-cost-flow's units
// cost far more than naive's.
func sizeUnits(n int) float64 {
	return max(float64(n)*math.Log2(float64(n)+2), 1)
}

// costModel predicts the time the cells still to run take: each cell's
// sizeUnits times its subject's measured rate (seconds per unit over the
// subject's finished cells), or, for a subject with no finished cell yet,
// the rate over all finished cells.
type costModel struct {
	// left holds the size units of the cells still to run, per subject.
	left map[string]float64
	// secs and units sum the finished cells' durations and size units,
	// per subject.
	secs, units       map[string]float64
	allSecs, allUnits float64
}

func newCostModel(todo []Cell) *costModel {
	m := &costModel{left: map[string]float64{}, secs: map[string]float64{}, units: map[string]float64{}}
	for i := range todo {
		m.left[todo[i].Subject] += sizeUnits(todo[i].Info.N)
	}
	return m
}

// done records that c finished after took.
func (m *costModel) done(c Cell, took time.Duration) {
	u := sizeUnits(c.Info.N)
	m.left[c.Subject] -= u
	m.secs[c.Subject] += took.Seconds()
	m.units[c.Subject] += u
	m.allSecs += took.Seconds()
	m.allUnits += u
}

// eta predicts the time to run the cells left on jobs workers; false
// before any cell finished.
func (m *costModel) eta(jobs int) (time.Duration, bool) {
	if m.allUnits == 0 {
		return 0, false
	}
	secs := 0.0
	for s, left := range m.left {
		rate := m.allSecs / m.allUnits
		if m.units[s] > 0 {
			rate = m.secs[s] / m.units[s]
		}
		secs += max(left, 0) * rate
	}
	return time.Duration(secs / float64(max(jobs, 1)) * float64(time.Second)), true
}
