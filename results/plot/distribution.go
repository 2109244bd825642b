package plot

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"membench/results"
)

// distributions draws one figure per family with at least five instances.
func distributions(dir string, groups []*results.Group, st *Styles, o Options) ([]string, error) {
	byFam := map[string]map[string]bool{}
	var fams []string
	for _, g := range groups {
		f := family(g.Workload)
		if byFam[f] == nil {
			byFam[f] = map[string]bool{}
			fams = append(fams, f)
		}
		byFam[f][g.Workload] = true
	}
	var files []string
	for _, f := range fams {
		if len(byFam[f]) < 5 {
			continue
		}
		fig, err := distributionFigure(groups, f, st)
		if err != nil {
			return files, err
		}
		fs, err := o.Write(fig, dir, "distribution-"+results.Slug(f))
		files = append(files, fs...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// distributionFigure draws, for the instances of one workload family, a
// box plot of footprint / LB_load per strategy.
func distributionFigure(gs []*results.Group, fam string, st *Styles) (*Figure, error) {
	bySub := map[string][]float64{}
	var subs []string
	fails := failures{}
	for _, g := range gs {
		if g.Kind == results.KindStrategy && g.OK == 0 && family(g.Workload) == fam {
			fails.add(g.Subject, g.Failed, 0, results.ShortLabel(g.Workload))
		}
		if g.Kind != results.KindStrategy || g.OK == 0 || family(g.Workload) != fam {
			continue
		}
		if _, ok := bySub[g.Subject]; !ok {
			subs = append(subs, g.Subject)
		}
		bySub[g.Subject] = append(bySub[g.Subject], g.Ratio)
	}
	name := filepath.Base(fam)
	if !results.IsFile(fam) {
		name = results.ShortLabel(fam)
	}
	p := newPlot(fmt.Sprintf("Footprint / LB_load over %s instances", name), "", "footprint / LB_load")
	fig := single(p)
	fig.caption = "Boxes: quartiles and median over the instances; whiskers: 1.5 × IQR; circles: outliers."
	if len(fails) > 0 {
		var notes []string
		for _, s := range slices.Sorted(maps.Keys(fails)) {
			notes = append(notes, results.ShortLabel(s)+fails.note(s, " on "))
		}
		fig.caption += " Failed cells are left out: " + strings.Join(notes, "; ") + "."
	}
	for j, s := range subs {
		box, err := plotter.NewBoxPlot(vg.Points(12), float64(j), plotter.Values(bySub[s]))
		if err != nil {
			return nil, err
		}
		box.FillColor = st.Of(s).Color
		box.BoxStyle.Width = vg.Points(0.5)
		box.MedianStyle.Width = vg.Points(1)
		p.Add(box)
	}
	if len(subs) > 0 {
		p.NominalX(results.ShortLabels(subs)...)
	}
	p.X.Tick.Label.Rotation = math.Pi / 5
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YTop
	return fig, nil
}
