package plot

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"membench/results"
	"membench/workloads"
)

// LayoutFigure draws an offset plan as rectangles on time × address, with
// the live-bytes profile (whose peak is LB_load) as a line.
func LayoutFigure(bufs []workloads.Buffer, offsets []int64, title string) (*Figure, error) {
	p := newPlot(title, "task", "address")
	fig := single(p)
	p.Y.Tick.Marker = byteTicks{}
	p.X.Tick.Marker = linearTicks{countLabel, 5}
	for i, b := range bufs {
		if b.Size == 0 {
			continue
		}
		x0, x1 := float64(b.First), float64(b.Last+1)
		y0, y1 := float64(offsets[i]), float64(offsets[i]+b.Size)
		poly, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		if err != nil {
			return nil, err
		}
		r, g, bl, _ := Palette[i%len(Palette)].RGBA()
		poly.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(bl >> 8), A: 170}
		poly.LineStyle.Width = vg.Points(0.3)
		poly.LineStyle.Color = color.Black
		p.Add(poly)
	}
	if prof := liveProfile(bufs); len(prof) > 0 {
		line, err := plotter.NewLine(prof)
		if err != nil {
			return nil, err
		}
		line.Color = color.Black
		line.Width = vg.Points(1.2)
		line.StepStyle = plotter.PostStep
		p.Add(line)
		fig.addLegend("live bytes (peak = LB_load)", line)
	}
	p.Y.Min = 0
	return fig, nil
}

// liveProfile returns the bytes live at each task as a step line.
func liveProfile(bufs []workloads.Buffer) plotter.XYs {
	T := 0
	for _, b := range bufs {
		T = max(T, b.Last+1)
	}
	if T == 0 || T > 1<<22 {
		return nil
	}
	delta := make([]float64, T+1)
	for _, b := range bufs {
		delta[b.First] += float64(b.Size)
		delta[b.Last+1] -= float64(b.Size)
	}
	xys := make(plotter.XYs, T+1)
	live := 0.0
	for t := 0; t <= T; t++ {
		live += delta[t]
		xys[t] = plotter.XY{X: float64(t), Y: live}
	}
	return xys
}

// TimelinePoint is the state of an allocator after one trace event:
// requested bytes in use, bytes reserved, and chunk bytes handed out
// (Allocated; below InUse it counts as InUse, no rounding shown).
type TimelinePoint struct {
	InUse, Reserved, Allocated int64
}

// Fills of the timeline's stacked bands under reserved.
var (
	requestedFill = color.NRGBA{R: 0xbd, G: 0xbd, B: 0xbd, A: 0xff}
	internalFill  = color.NRGBA{R: 0xfd, G: 0xae, B: 0x6b, A: 0xff}
	externalFill  = color.NRGBA{R: 0xc6, G: 0xdb, B: 0xef, A: 0xff}
)

// band is the area between lo and hi over a panel's points.
func band(pts []TimelinePoint, lo, hi func(TimelinePoint) int64, fill color.Color) (*plotter.Polygon, error) {
	xys := make(plotter.XYs, 0, 2*len(pts))
	for k, q := range pts {
		xys = append(xys, plotter.XY{X: float64(k), Y: float64(hi(q))})
	}
	for k := len(pts) - 1; k >= 0; k-- {
		xys = append(xys, plotter.XY{X: float64(k), Y: float64(lo(pts[k]))})
	}
	pg, err := plotter.NewPolygon(xys)
	if err != nil {
		return nil, err
	}
	pg.Color = fill
	pg.LineStyle.Width = 0
	return pg, nil
}

// timelineBands stacks requested, internal (rounding) and external (free)
// bytes under reserved.
func timelineBands(pts []TimelinePoint) ([]*plotter.Polygon, error) {
	alloc := func(q TimelinePoint) int64 { return min(max(q.Allocated, q.InUse), max(q.Reserved, q.InUse)) }
	zero := func(TimelinePoint) int64 { return 0 }
	inUse := func(q TimelinePoint) int64 { return q.InUse }
	reserved := func(q TimelinePoint) int64 { return max(q.Reserved, alloc(q)) }
	var out []*plotter.Polygon
	for _, b := range []struct {
		lo, hi func(TimelinePoint) int64
		fill   color.Color
	}{{zero, inUse, requestedFill}, {inUse, alloc, internalFill}, {alloc, reserved, externalFill}} {
		pg, err := band(pts, b.lo, b.hi, b.fill)
		if err != nil {
			return nil, err
		}
		out = append(out, pg)
	}
	return out, nil
}

// TimelinePanel is one allocator's replay of a trace.
type TimelinePanel struct {
	Subject string
	Points  []TimelinePoint
}

// TimelineFigure draws allocator replays of one trace: requested bytes in
// use and reserved bytes over the trace's events, with the bytes under
// reserved stacked as requested, internal fragmentation (rounding) and
// external fragmentation (free), one panel per allocator
// (small multiples, stacked, with one shared x and y range so heights
// compare at a glance). Each allocator's reserved line has its colour of
// st (a stable colour where st is nil).
func TimelineFigure(title string, panels []TimelinePanel, st *Styles) (*Figure, error) {
	maxR, maxT := 0.0, 0.0
	for _, pn := range panels {
		maxT = max(maxT, float64(len(pn.Points)))
		for _, q := range pn.Points {
			maxR = max(maxR, float64(q.Reserved), float64(q.InUse))
		}
	}
	if maxR == 0 {
		maxR = 1
	}
	// A near-square grid: panels side by side compare heights best.
	cols := int(math.Ceil(math.Sqrt(float64(len(panels)))))
	rows := (len(panels) + cols - 1) / cols
	fig := &Figure{panels: make([][]*plot.Plot, rows)}
	if len(panels) > 1 {
		fig.title = title
		fig.caption = "Panels share both axes: x is the trace event, y the bytes in use and reserved."
	}
	subs := make([]string, len(panels))
	for i, pn := range panels {
		subs[i] = pn.Subject
	}
	labels := results.ShortLabels(subs)
	var inUseThumb *plotter.Line
	var bandThumbs []*plotter.Polygon
	for r := range fig.panels {
		fig.panels[r] = make([]*plot.Plot, cols)
	}
	for i, pn := range panels {
		// Every panel has the same decorations, so that all data areas
		// are the same size.
		p := newPlot(labels[i], "", "")
		if len(panels) == 1 {
			p = newPlot(title, "trace event", "bytes")
		}
		p.Y.Tick.Marker = byteTicks{n: 5}
		p.X.Tick.Marker = linearTicks{countLabel, 5}
		if len(panels) > 1 {
			// Small panels: few ticks, small labels, no gaps.
			p.Y.Tick.Marker = byteTicks{n: 3}
			p.X.Tick.Marker = linearTicks{countLabel, 2}
			for _, a := range []*plot.Axis{&p.X, &p.Y} {
				a.Tick.Label.Font.Size = vg.Points(tickSize - 1)
				a.Tick.Length = vg.Points(2)
				a.Padding = 0
			}
			p.Title.TextStyle.Font.Size = vg.Points(labelSize)
			p.Title.Padding = vg.Points(1)
		}
		p.Y.Min, p.Y.Max = 0, maxR*1.05
		p.X.Min, p.X.Max = 0, max(maxT-1, 1)
		inUse := make(plotter.XYs, len(pn.Points))
		reserved := make(plotter.XYs, len(pn.Points))
		for k, q := range pn.Points {
			inUse[k] = plotter.XY{X: float64(k), Y: float64(q.InUse)}
			reserved[k] = plotter.XY{X: float64(k), Y: float64(q.Reserved)}
		}
		if len(pn.Points) > 0 {
			lr, err := plotter.NewLine(reserved)
			if err != nil {
				return nil, err
			}
			sty := st.Of(pn.Subject)
			lr.Color, lr.Width, lr.Dashes = sty.Color, vg.Points(1.5), sty.Dashes
			li, err := plotter.NewLine(inUse)
			if err != nil {
				return nil, err
			}
			li.Color, li.Width = color.Black, vg.Points(0.7)
			bands, err := timelineBands(pn.Points)
			if err != nil {
				return nil, err
			}
			for _, b := range bands {
				p.Add(b)
			}
			bandThumbs = bands
			p.Add(lr, li)
			if len(panels) == 1 {
				fig.addLegend("reserved", lr)
			} else {
				fig.addLegend(labels[i]+": reserved", lr)
			}
			inUseThumb = li
		}
		fig.panels[i/cols][i%cols] = p
	}
	if inUseThumb != nil {
		fig.addLegend("in use (requested)", inUseThumb)
		for i, name := range []string{"requested", "internal (rounding)", "external (free)"} {
			fig.addLegend(name, bandThumbs[i])
		}
	}
	return fig, nil
}
