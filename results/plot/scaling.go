package plot

import (
	"cmp"
	"path/filepath"
	"slices"

	"github.com/montanaflynn/stats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"membench/results"
)

// scalingCaption says what the scaling figure's points and error bars are.
const scalingCaption = "Points: median time per plan over repeats × samples " +
	"(the median of the instances' medians where a size has several); " +
	"error bars: min–max over repeats × samples."

func scaling(dir string, groups []*results.Group, st *Styles, o Options) ([]string, error) {
	fig, ok, err := scalingFigure(groups, st)
	if err != nil || !ok {
		return nil, err
	}
	return o.Write(fig, dir, "scaling")
}

// scalingFigure draws median planning time against buffer count on log-log
// axes, one line per strategy, with error bars from the fastest to the
// slowest sample. It uses the workload family with the most distinct sizes
// and reports false when none has three.
func scalingFigure(gs []*results.Group, st *Styles) (*Figure, bool, error) {
	sizes := map[string]map[int]bool{}
	for _, g := range gs {
		if g.Kind == results.KindStrategy && g.OK > 0 {
			f := family(g.Workload)
			if sizes[f] == nil {
				sizes[f] = map[int]bool{}
			}
			sizes[f][g.N] = true
		}
	}
	best := ""
	for f, ns := range sizes {
		if len(ns) > len(sizes[best]) || len(ns) == len(sizes[best]) && f < best {
			best = f
		}
	}
	if len(sizes[best]) < 3 {
		return nil, false, nil
	}
	name := best
	if !results.IsFile(best) {
		name = results.ShortLabel(best)
	} else {
		name = filepath.Base(best)
	}
	p := newPlot("Planning time vs size ("+name+")", "buffers (n)", "time per plan")
	fig := single(p)
	fig.caption = scalingCaption
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = logTicks{countLabel}, logTicks{secondsLabel}
	type pt struct {
		n           int
		med, lo, hi float64
	}
	bySub := map[string][]pt{}
	var subs []string
	fails := failures{}
	for _, g := range gs {
		if g.Kind == results.KindStrategy && g.OK == 0 && family(g.Workload) == best {
			fails.add(g.Subject, g.Failed, float64(g.N), countLabel(float64(g.N)))
		}
		if g.Kind != results.KindStrategy || g.OK == 0 || family(g.Workload) != best || len(g.TimesNs) == 0 {
			continue
		}
		if _, ok := bySub[g.Subject]; !ok {
			subs = append(subs, g.Subject)
		}
		lo, _ := stats.Min(g.TimesNs)
		hi, _ := stats.Max(g.TimesNs)
		bySub[g.Subject] = append(bySub[g.Subject], pt{g.N, g.MedianNs / 1e9, lo / 1e9, hi / 1e9})
	}
	labels := results.ShortLabels(subs)
	var minN, maxN float64
	for j, s := range subs {
		pts := bySub[s]
		slices.SortFunc(pts, func(a, b pt) int { return cmp.Compare(a.n, b.n) })
		var xys plotter.XYs
		var errs plotter.YErrors
		for i := 0; i < len(pts); {
			k := i
			var meds, los, his []float64
			for ; k < len(pts) && pts[k].n == pts[i].n; k++ {
				meds, los, his = append(meds, pts[k].med), append(los, pts[k].lo), append(his, pts[k].hi)
			}
			m, _ := stats.Median(meds)
			lo, _ := stats.Min(los)
			hi, _ := stats.Max(his)
			if m > 0 && lo > 0 && pts[i].n > 0 {
				n := float64(pts[i].n)
				if minN == 0 || n < minN {
					minN = n
				}
				maxN = max(maxN, n)
				xys = append(xys, plotter.XY{X: n, Y: m})
				errs = append(errs, struct{ Low, High float64 }{m - lo, hi - m})
			}
			i = k
		}
		if len(xys) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, false, err
		}
		sty := st.Of(s)
		line.Color, line.Dashes, line.Width = sty.Color, sty.Dashes, vg.Points(1)
		points.Color, points.Shape, points.Radius = sty.Color, sty.Shape, vg.Points(2)
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{xys, errs})
		if err != nil {
			return nil, false, err
		}
		eb.Color = sty.Color
		eb.Width = vg.Points(0.6)
		eb.CapWidth = vg.Points(3)
		p.Add(line, points, eb)
		fig.addLegend(labels[j]+fails.note(s, " at n = "), line, points)
	}
	// Room beside the smallest and largest size for the markers.
	if minN > 0 {
		p.X.Min, p.X.Max = minN/1.15, maxN*1.15
	}
	return fig, true, nil
}
