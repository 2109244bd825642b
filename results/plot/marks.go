package plot

import (
	"cmp"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// plotterGrid is a light grid behind the data.
func plotterGrid() *plotter.Grid {
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 220}
	g.Horizontal.Color = color.Gray{Y: 220}
	g.Vertical.Width = vg.Points(0.4)
	g.Horizontal.Width = vg.Points(0.4)
	return g
}

// bars are the bars of one subject, placed in data coordinates (so that
// marks and labels can be put exactly over them): bar i spans
// [x0[i], x1[i]] and rises from 0 to y[i].
type bars struct {
	x0, x1, y []float64
	fill      color.Color
}

var barEdge = draw.LineStyle{Color: color.Gray{Y: 60}, Width: vg.Points(0.3)}

// Plot draws the bars.
func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	for i := range b.y {
		pts := []vg.Point{
			{X: tx(b.x0[i]), Y: ty(0)}, {X: tx(b.x1[i]), Y: ty(0)},
			{X: tx(b.x1[i]), Y: ty(b.y[i])}, {X: tx(b.x0[i]), Y: ty(b.y[i])},
		}
		c.FillPolygon(b.fill, c.ClipPolygonY(pts))
		c.StrokeLines(barEdge, c.ClipLinesY(append(pts, pts[0]))...)
	}
}

// DataRange covers the bars and the zero line.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for i := range b.y {
		xmin, xmax = min(xmin, b.x0[i]), max(xmax, b.x1[i])
		ymax = max(ymax, b.y[i])
	}
	return xmin, xmax, 0, ymax
}

// Thumbnail draws a filled square for the legend.
func (b *bars) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	w := r.Size().Y
	x := r.Min.X + (r.Size().X-w)/2
	pts := []vg.Point{{X: x, Y: r.Min.Y}, {X: x + w, Y: r.Min.Y}, {X: x + w, Y: r.Max.Y}, {X: x, Y: r.Max.Y}}
	c.FillPolygon(b.fill, pts)
	c.StrokeLines(barEdge, append(pts, pts[0]))
}

// failMark is the mark drawn where a failed cell's bar would stand.
const failMark = "×"

// textThumb is a legend thumbnail showing a piece of text, such as the
// failed-cell mark.
type textThumb string

// Thumbnail draws the text centred in the icon.
func (t textThumb) Thumbnail(c *draw.Canvas) {
	sty := textStyle(tickSize + 2)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	c.FillText(sty, c.Center(), string(t))
}

// labels returns text labels at data points, in style sty.
func labels(xys []plotter.XY, texts []string, sty draw.TextStyle) (*plotter.Labels, error) {
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: texts})
	if err != nil {
		return nil, err
	}
	for i := range l.TextStyle {
		l.TextStyle[i] = sty
	}
	return l, nil
}

// failures collects the failed cells of each subject in a figure that has
// no place to mark them: the statuses, and where (a size, a workload) in
// the order of a key.
type failures map[string]*failed

type failed struct {
	statuses []string
	where    []place
}

type place struct {
	key  float64
	name string
}

func (f failures) add(subject string, statuses []string, key float64, where string) {
	e := f[subject]
	if e == nil {
		e = &failed{}
		f[subject] = e
	}
	for _, s := range statuses {
		if !slices.Contains(e.statuses, s) {
			e.statuses = append(e.statuses, s)
		}
	}
	e.where = append(e.where, place{key, where})
}

// note describes a subject's failures, e.g. " (× timeout at n = 1k, 3k)",
// or "" where it has none.
func (f failures) note(subject, at string) string {
	e := f[subject]
	if e == nil {
		return ""
	}
	slices.SortStableFunc(e.where, func(a, b place) int { return cmp.Compare(a.key, b.key) })
	var names []string
	for _, p := range e.where {
		names = append(names, p.name)
	}
	return " (" + failMark + " " + strings.Join(e.statuses, "/") + at + strings.Join(names, ", ") + ")"
}
