package view

import (
	"cmp"
	"slices"

	"membench/strategies"
	"membench/workloads"
)

// Layout is one validated plan of a problem, ready for zoom requests: the
// buffers as rectangles of time (tasks [First, Last+1)) by address
// ([offset, offset+size)), the live-bytes profile and the peak.
type Layout struct {
	Name     string
	Problem  *workloads.Problem
	Plan     *strategies.Plan
	Tasks    int // max Last + 1
	Profile  *Series
	LBLoad   int64
	PeakTask int
	// SpaceBases are where each memory space starts in the drawing, for a
	// plan of several (nil otherwise).
	SpaceBases []int64
	// moved[i] marks buffer i as placed elsewhere by the layout it is
	// compared with (nil: none).
	moved []bool
	// offs are the offsets drawn: the plan's, each memory space of a
	// problem with several stacked above the one before it.
	offs []int64
	// top is the height drawn: the footprint, or the spaces' sum.
	top int64
}

// NewLayout checks plan against p and builds its layout.
func NewLayout(name string, p *workloads.Problem, plan *strategies.Plan) (*Layout, error) {
	if err := strategies.Validate(p, plan); err != nil {
		return nil, err
	}
	tasks := p.MaxTask() + 1
	diff := make([]int64, tasks+1)
	for _, b := range p.Buffers {
		diff[b.First] += b.Size
		diff[b.Last+1] -= b.Size
	}
	live := make([]int64, tasks)
	var cur, peak int64
	peakAt := 0
	for t := range live {
		cur += diff[t]
		live[t] = cur
		if cur > peak {
			peak, peakAt = cur, t
		}
	}
	l := &Layout{Name: name, Problem: p, Plan: plan, Tasks: tasks, Profile: NewSeries(live), LBLoad: peak, PeakTask: peakAt,
		offs: plan.Offsets, top: plan.Footprint}
	if plan.Footprints != nil {
		base := make([]int64, len(plan.Footprints))
		for m := 1; m < len(base); m++ {
			base[m] = base[m-1] + plan.Footprints[m-1]
		}
		l.offs = make([]int64, len(plan.Offsets))
		for i, o := range plan.Offsets {
			l.offs[i] = o + base[p.MemoryOf(i)]
		}
		l.SpaceBases = base
	}
	return l, nil
}

// Top is the height of the layout as drawn: the footprint, or with
// several memory spaces the sum of theirs.
func (l *Layout) Top() int64 { return l.top }

// Compare marks in a and b the buffers the two layouts of one problem
// place at different offsets.
func Compare(a, b *Layout) {
	if a.Problem.Len() != b.Problem.Len() {
		return
	}
	m := make([]bool, a.Problem.Len())
	for i := range m {
		m[i] = a.Plan.Offsets[i] != b.Plan.Offsets[i]
	}
	a.moved, b.moved = m, m
}

// Viewport is the part of the layout a zoom request shows: tasks [T0, T1)
// and addresses [A0, A1), drawn W by H pixels.
type Viewport struct {
	T0, T1 int64
	A0, A1 int64
	W, H   int
}

// Rect is a buffer drawn on its own.
type Rect struct {
	I     int   `json:"i"`
	First int   `json:"f"`
	Last  int   `json:"l"`
	Off   int64 `json:"o"`
	Size  int64 `json:"s"`
	// Peak marks a buffer live at the peak task, Moved one the compared
	// layout places elsewhere.
	Peak  bool `json:"p,omitempty"`
	Moved bool `json:"m,omitempty"`
	// Label is the buffer's name in the input (operator or tensor), if any.
	Label string `json:"n,omitempty"`
}

// Tiles is the answer to a zoom request: the buffers large enough to draw
// (at least MinPx pixels on both axes, at most MaxRects of them, largest
// first), and the rest summed into a grid of Cols by Rows cells, each the
// bytes x tasks of their area inside it. The viewport's Total is the area
// of every buffer inside it: the rectangles' clipped areas plus the cells.
type Tiles struct {
	Rects []Rect    `json:"rects"`
	Cols  int       `json:"cols"`
	Rows  int       `json:"rows"`
	Cells []float64 `json:"cells"` // row-major, Rows x Cols
	// Hidden counts the buffers summed into cells.
	Hidden int `json:"hidden"`
	// Shown is the area of Rects inside the viewport; Total adds Cells.
	Shown float64 `json:"shown"`
	Total float64 `json:"total"`
}

// The level of detail: the least size a buffer is drawn at, the most
// rectangles one answer holds, and the grid cell's side, in pixels.
const (
	MinPx    = 1.0
	MaxRects = 20000
	CellPx   = 4
	// MaxPx bounds a viewport's sides: more than any screen has.
	MaxPx = 8192
)

// rects returns every buffer inside v as a rectangle, whatever its size.
func (l *Layout) rects(v Viewport) []Rect {
	out := []Rect{}
	for i, b := range l.Problem.Buffers {
		off := l.offs[i]
		if int64(b.First) < v.T1 && int64(b.Last)+1 > v.T0 && off < v.A1 && off+b.Size > v.A0 && b.Size > 0 {
			out = append(out, l.rect(i))
		}
	}
	return out
}

// rect is buffer i's rectangle.
func (l *Layout) rect(i int) Rect {
	b := l.Problem.Buffers[i]
	r := Rect{I: i, First: b.First, Last: b.Last, Off: l.offs[i], Size: b.Size,
		Peak: b.First <= l.PeakTask && l.PeakTask <= b.Last}
	if l.moved != nil {
		r.Moved = l.moved[i]
	}
	if l.Problem.Labels != nil {
		r.Label = l.Problem.Labels[i]
	}
	return r
}

// Query answers a zoom request. It scans every buffer once: 10^6 of them
// take a few milliseconds, which a pyramid would not beat by much for
// rectangles of every shape.
func (l *Layout) Query(v Viewport) Tiles { return l.query(v, MaxRects) }

// query is Query drawing at most maxRects rectangles.
func (l *Layout) query(v Viewport, maxRects int) Tiles {
	v.W, v.H = min(max(v.W, 1), MaxPx), min(max(v.H, 1), MaxPx)
	if v.T1 <= v.T0 {
		v.T1 = v.T0 + 1
	}
	if v.A1 <= v.A0 {
		v.A1 = v.A0 + 1
	}
	cols, rows := (v.W+CellPx-1)/CellPx, (v.H+CellPx-1)/CellPx
	t := Tiles{Cols: cols, Rows: rows, Cells: make([]float64, cols*rows)}
	pxT := float64(v.W) / float64(v.T1-v.T0)
	pxA := float64(v.H) / float64(v.A1-v.A0)
	type cand struct {
		r    Rect
		area float64 // pixels, to keep the largest
		in   float64 // bytes x tasks inside the viewport
	}
	var big []cand
	var small []int
	bufs, offs := l.Problem.Buffers, l.offs
	for i, b := range bufs {
		t0, t1 := max(int64(b.First), v.T0), min(int64(b.Last)+1, v.T1)
		a0, a1 := max(offs[i], v.A0), min(offs[i]+b.Size, v.A1)
		if t0 >= t1 || a0 >= a1 {
			continue
		}
		in := float64(t1-t0) * float64(a1-a0)
		t.Total += in
		w, h := float64(t1-t0)*pxT, float64(a1-a0)*pxA
		if w < MinPx || h < MinPx {
			small = append(small, i)
			continue
		}
		big = append(big, cand{l.rect(i), w * h, in})
	}
	if len(big) > maxRects {
		slices.SortStableFunc(big, func(x, y cand) int { return cmp.Compare(y.area, x.area) })
		for _, c := range big[maxRects:] {
			small = append(small, c.r.I)
		}
		big = big[:maxRects]
	}
	t.Rects = make([]Rect, len(big))
	for k, c := range big {
		t.Rects[k] = c.r
		t.Shown += c.in
	}
	t.Hidden = len(small)
	// Cell boundaries are whole tasks and bytes, so each cell's area is
	// exact: column i holds tasks [T0 + i*dT/cols, T0 + (i+1)*dT/cols).
	colAt := func(i int) int64 { return v.T0 + int64(i)*(v.T1-v.T0)/int64(cols) }
	rowAt := func(j int) int64 { return v.A0 + int64(j)*(v.A1-v.A0)/int64(rows) }
	colOf := func(x int64) int { return int((x - v.T0) * int64(cols) / (v.T1 - v.T0)) }
	rowOf := func(y int64) int { return int(float64(y-v.A0) * float64(rows) / float64(v.A1-v.A0)) }
	for _, i := range small {
		b := bufs[i]
		t0, t1 := max(int64(b.First), v.T0), min(int64(b.Last)+1, v.T1)
		a0, a1 := max(offs[i], v.A0), min(offs[i]+b.Size, v.A1)
		c0 := max(colOf(t0)-1, 0)
		for c := c0; c < cols; c++ {
			x0, x1 := max(t0, colAt(c)), min(t1, colAt(c+1))
			if colAt(c) >= t1 {
				break
			}
			if x0 >= x1 {
				continue
			}
			r0 := max(rowOf(a0)-1, 0)
			for r := r0; r < rows; r++ {
				y0, y1 := max(a0, rowAt(r)), min(a1, rowAt(r+1))
				if rowAt(r) >= a1 {
					break
				}
				if y0 < y1 {
					t.Cells[r*cols+c] += float64(x1-x0) * float64(y1-y0)
				}
			}
		}
	}
	return t
}
