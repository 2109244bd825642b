package plot

import (
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"membench/results"
)

// measure is a footprint measure drawn as bars, one figure per workload
// group: a ratio of every ok (workload, subject) pair. A second measure
// (footprint / best known) is one more entry of measures.
type measure struct {
	// name prefixes the figure's file name.
	name string
	// label is the y axis label for strategies and for allocators.
	label map[string]string
	title map[string]string
	value func(*results.Group) float64
}

var measures = []measure{{
	name: "footprint",
	label: map[string]string{
		results.KindStrategy:  "footprint / LB_load",
		results.KindAllocator: "peak reserved / LB_load",
	},
	title: map[string]string{
		results.KindStrategy:  "Footprint relative to the lower bound",
		results.KindAllocator: "Allocator footprint relative to the lower bound",
	},
	value: func(g *results.Group) float64 { return g.Ratio },
}}

// footprints draws one footprint figure per measure, workload group and
// subject kind.
func footprints(dir string, groups []*results.Group, st *Styles, o Options) ([]string, error) {
	var files []string
	for _, m := range measures {
		for _, kind := range []string{results.KindStrategy, results.KindAllocator} {
			byFam := map[string][]*results.Group{}
			var fams []string
			for _, g := range groups {
				if g.Kind != kind {
					continue
				}
				f := figureGroup(g.Workload)
				if _, ok := byFam[f]; !ok {
					fams = append(fams, f)
				}
				byFam[f] = append(byFam[f], g)
			}
			for _, f := range fams {
				name := m.name + "-" + results.Slug(f)
				if kind == results.KindAllocator {
					name = m.name + "-allocators-" + results.Slug(f)
				}
				fig, err := footprintFigure(byFam[f], kind, m, st)
				if err != nil {
					return files, err
				}
				fs, err := o.Write(fig, dir, name)
				files = append(files, fs...)
				if err != nil {
					return files, err
				}
			}
		}
	}
	return files, nil
}

// capFor returns the height bars are cut at: a few huge ratios (naive, no
// reuse) would flatten every other bar, so where the largest tenth of the
// values (at least one) rise above twice the rest, the axis stops at 1.5
// times the largest of the rest.
func capFor(vals []float64) float64 {
	v := slices.Clone(vals)
	slices.Sort(v)
	if len(v) < 2 {
		return max(1, slices.Max(append(v, 1)))
	}
	rest := max(v[len(v)-1-max(1, len(v)/10)], 1)
	if v[len(v)-1] > 2*rest {
		return 1.5 * rest
	}
	return max(1, v[len(v)-1])
}

// footprintFigure draws grouped bars of a measure per workload (groups)
// and subject (bars), the memory-planning papers' figure. A failed cell
// is marked × where its bar would stand; a cell not run is left empty.
func footprintFigure(gs []*results.Group, kind string, m measure, st *Styles) (*Figure, error) {
	ws, subs := results.Axes(gs)
	p := newPlot(m.title[kind], "", m.label[kind])
	fig := single(p)
	cell := map[[2]string]*results.Group{}
	var all []float64
	for _, g := range gs {
		cell[[2]string{g.Workload, g.Subject}] = g
		if g.OK > 0 {
			all = append(all, m.value(g))
		}
	}
	limit := capFor(all)
	const span = 0.8 // of a workload's slot on the x axis
	w := span / float64(len(subs))
	var cut, failed []plotter.XY
	var cutText, failedText, statuses []string
	subLabels := results.ShortLabels(subs)
	for j, s := range subs {
		b := &bars{fill: st.Of(s).Color}
		for i, wl := range ws {
			g := cell[[2]string{wl, s}]
			x0 := float64(i) - span/2 + float64(j)*w
			switch {
			case g == nil:
			case g.OK == 0:
				failed = append(failed, plotter.XY{X: x0 + w/2, Y: 0})
				failedText = append(failedText, failMark)
				for _, f := range g.Failed {
					if !slices.Contains(statuses, f) {
						statuses = append(statuses, f)
					}
				}
			default:
				v := m.value(g)
				b.x0, b.x1, b.y = append(b.x0, x0), append(b.x1, x0+w), append(b.y, min(v, limit))
				if v > limit {
					cut = append(cut, plotter.XY{X: x0 + w/2, Y: limit})
					cutText = append(cutText, countLabel(v))
				}
			}
		}
		p.Add(b)
		fig.addLegend(subLabels[j], b)
	}
	one := plotter.NewFunction(func(float64) float64 { return 1 })
	one.Color = color.Gray{Y: 90}
	one.Width = vg.Points(0.6)
	one.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
	p.Add(one)
	if len(cut) > 0 {
		sty := textStyle(tickSize - 1)
		sty.Rotation = math.Pi / 2
		sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
		l, err := labels(cut, cutText, sty)
		if err != nil {
			return nil, err
		}
		l.Offset = vg.Point{Y: vg.Points(1.5)}
		p.Add(l)
		fig.caption = "Bars above " + countLabel(limit) + " are cut there and labelled with their value."
	}
	if len(failed) > 0 {
		sty := textStyle(tickSize + 2)
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YBottom
		l, err := labels(failed, failedText, sty)
		if err != nil {
			return nil, err
		}
		p.Add(l)
		fig.addLegend("failed ("+strings.Join(statuses, ", ")+")", textThumb(failMark))
	}
	p.NominalX(results.ShortLabels(ws)...)
	p.X.Min, p.X.Max = -0.5, float64(len(ws))-0.5
	p.X.Tick.Label.Rotation = math.Pi / 5
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YTop
	p.Y.Tick.Marker = linearTicks{}
	p.Y.Min = 0
	p.Y.Max = limit * 1.05
	if len(cut) > 0 {
		// Room for the values of cut bars above the cap.
		p.Y.Max = limit * 1.2
	}
	return fig, nil
}
