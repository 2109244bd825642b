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
	// mark, if set, stars a workload's label (a proved optimum); a measure
	// with it is drawn only for groups where value is known.
	mark func(*results.Group) bool
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
}, {
	name:  "footprint-best",
	label: map[string]string{results.KindStrategy: "footprint / best known"},
	title: map[string]string{results.KindStrategy: "Footprint relative to the best known (" + optimalMark + ": proved optimal)"},
	value: func(g *results.Group) float64 { return g.BestRatio },
	mark:  func(g *results.Group) bool { return g.Best.Optimal() },
}}

// optimalMark stars a workload whose best known is proved optimal. The
// figures' fonts have no "★" (summary.md's mark), so it is an asterisk.
const optimalMark = "*"

// footprints draws one footprint figure per measure, workload group and
// subject kind.
func footprints(dir string, groups []*results.Group, st *Styles, o Options) ([]string, error) {
	var files []string
	for _, m := range measures {
		for _, kind := range []string{results.KindStrategy, results.KindAllocator} {
			if m.label[kind] == "" {
				continue
			}
			byFam := map[string][]*results.Group{}
			var fams []string
			for _, g := range groups {
				if g.Kind != kind || m.mark != nil && g.OK > 0 && m.value(g) == 0 {
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
				fig, err := footprintFigure(byFam[f], kind, m, st, nil)
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

// barNotes are texts written over bars (the runtime figure's winning
// planners), keyed by workload and subject.
type barNotes struct {
	text map[[2]string]string
	// size is the font size; room is the fraction of the plot's height
	// kept free above the tallest bar for the texts.
	size, room float64
}

// at returns the note over a bar ("" for none, or no notes).
func (n *barNotes) at(workload, subject string) string {
	if n == nil {
		return ""
	}
	return n.text[[2]string{workload, subject}]
}

// footprintFigure draws grouped bars of a measure per workload (groups)
// and subject (bars), the memory-planning papers' figure. A failed cell
// is marked × where its bar would stand; a cell not run is left empty.
// notes, if any, are written over the bars, before the value of a cut bar.
func footprintFigure(gs []*results.Group, kind string, m measure, st *Styles, notes *barNotes) (*Figure, error) {
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
	var cut, failed, noted []plotter.XY
	var cutText, failedText, statuses, notedText []string
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
				switch note := notes.at(wl, s); {
				case v > limit:
					cut = append(cut, plotter.XY{X: x0 + w/2, Y: limit})
					cutText = append(cutText, strings.TrimSpace(note+" "+countLabel(v)))
				case note != "":
					noted = append(noted, plotter.XY{X: x0 + w/2, Y: v})
					notedText = append(notedText, note)
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
	size := float64(tickSize - 1)
	if notes != nil {
		size = notes.size
	}
	for _, l := range []struct {
		at    []plotter.XY
		texts []string
	}{{cut, cutText}, {noted, notedText}} {
		if len(l.at) == 0 {
			continue
		}
		sty := textStyle(size)
		sty.Rotation = math.Pi / 2
		sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
		ls, err := labels(l.at, l.texts, sty)
		if err != nil {
			return nil, err
		}
		ls.Offset = vg.Point{Y: vg.Points(1.5)}
		p.Add(ls)
	}
	if len(cut) > 0 {
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
	xs := results.ShortLabels(ws)
	if m.mark != nil {
		for i, wl := range ws {
			if slices.ContainsFunc(gs, func(g *results.Group) bool { return g.Workload == wl && m.mark(g) }) {
				xs[i] += " " + optimalMark
			}
		}
	}
	p.NominalX(xs...)
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
	if notes != nil {
		p.Y.Max = max(p.Y.Max, limit*1.05/(1-notes.room))
	}
	return fig, nil
}
