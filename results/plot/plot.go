// Package plot draws membench's paper-style figures as PNG with gonum/plot:
// footprint / lower bound bars, planning-time scaling, offset-plan layouts,
// allocator timelines and ratio distributions.
package plot

import (
	"bytes"
	"cmp"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/montanaflynn/stats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"membench/results"
	"membench/workloads"
)

// Figure size and resolution: a full column width of a paper at print DPI.
const (
	Width  = 6.5 * vg.Inch
	Height = 4 * vg.Inch
	DPI    = 150
)

// PixelSize returns the size in pixels of the PNGs written here.
func PixelSize() (w, h int) {
	return int(math.Round(float64(Width/vg.Inch) * DPI)), int(math.Round(float64(Height/vg.Inch) * DPI))
}

// save renders p to file as PNG, atomically.
func save(p *plot.Plot, file string) error {
	c := vgimg.NewWith(vgimg.UseWH(Width, Height), vgimg.UseDPI(DPI))
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return err
	}
	return results.WriteFileAtomic(file, buf.Bytes())
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Title.TextStyle.Font.Size = vg.Points(12)
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

// family is a workload spec without its parameters: the instances of one
// generator.
func family(spec string) string {
	name, _, _ := strings.Cut(spec, "?")
	return name
}

// WriteAll draws the figures of kind ("" for all of footprint, scaling and
// distribution) that the records support into dir, and returns the files
// written: footprint-<group>.png per workload group and subject kind,
// scaling.png, and distribution-<family>.png for families with at least
// five instances.
func WriteAll(dir string, recs []results.Record, kind string) ([]string, error) {
	groups := results.Aggregate(recs)
	var files []string
	for _, d := range []struct {
		kind string
		draw func(string, []*results.Group) ([]string, error)
	}{{"footprint", footprints}, {"scaling", scaling}, {"distribution", distributions}} {
		if kind != "" && kind != d.kind {
			continue
		}
		fs, err := d.draw(dir, groups)
		files = append(files, fs...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// footprints draws one footprint figure per workload group and kind.
func footprints(dir string, groups []*results.Group) ([]string, error) {
	var files []string
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
			name := "footprint-" + results.Slug(f) + ".png"
			if kind == results.KindAllocator {
				name = "footprint-allocators-" + results.Slug(f) + ".png"
			}
			file := filepath.Join(dir, name)
			if err := Footprint(file, byFam[f], kind); err != nil {
				return files, err
			}
			files = append(files, file)
		}
	}
	return files, nil
}

func scaling(dir string, groups []*results.Group) ([]string, error) {
	file := filepath.Join(dir, "scaling.png")
	ok, err := Scaling(file, groups)
	if err != nil || !ok {
		return nil, err
	}
	return []string{file}, nil
}

// distributions draws one figure per family with at least five instances.
func distributions(dir string, groups []*results.Group) ([]string, error) {
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
		file := filepath.Join(dir, "distribution-"+results.Slug(f)+".png")
		if err := Distribution(file, groups, f); err != nil {
			return files, err
		}
		files = append(files, file)
	}
	return files, nil
}

// registeredName matches the names of registered workloads; other specs
// are file paths.
var registeredName = regexp.MustCompile(`^[a-z0-9-]+(/[a-z0-9-]+)*$`)

// figureGroup names the footprint figure a workload goes in: its
// registry family (zoo, synthetic), or "files" for workload files, whose
// first path element means nothing.
func figureGroup(spec string) string {
	name := family(spec)
	if !registeredName.MatchString(name) {
		return "files"
	}
	return strings.SplitN(name, "/", 2)[0]
}

// Footprint draws grouped bars of footprint / LB_load per workload (groups)
// and subject (bars), the memory-planning papers' figure. Failed cells
// leave a gap.
func Footprint(file string, gs []*results.Group, kind string) error {
	ws, subs := results.Axes(gs)
	ylabel := "footprint / LB_load"
	title := "Footprint relative to the lower bound"
	if kind == results.KindAllocator {
		ylabel = "peak reserved / LB_load"
		title = "Allocator footprint relative to the lower bound"
	}
	p := newPlot(title, "", ylabel)
	cell := map[[2]string]*results.Group{}
	for _, g := range gs {
		cell[[2]string{g.Workload, g.Subject}] = g
	}
	width := vg.Points(math.Max(1.5, math.Min(12, 300/float64(len(ws)*len(subs)))))
	var all []float64
	for _, g := range gs {
		if g.OK > 0 {
			all = append(all, g.Ratio)
		}
	}
	// A few huge ratios (naive, no reuse) would flatten every other bar:
	// bars above the cap are cut there and carry their value as a label.
	top := 1.0
	for _, r := range all {
		top = max(top, r)
	}
	limit := top
	if p90, err := stats.Percentile(all, 90); err == nil && top > 2*max(p90, 1) {
		limit = 1.5 * max(p90, 1)
	}
	var clipped plotter.XYLabels
	for j, s := range subs {
		vals := make(plotter.Values, len(ws))
		off := float64(j) - float64(len(subs)-1)/2
		for i, w := range ws {
			if g := cell[[2]string{w, s}]; g != nil && g.OK > 0 {
				vals[i] = min(g.Ratio, limit)
				if g.Ratio > limit {
					clipped.XYs = append(clipped.XYs, plotter.XY{X: float64(i) + off*float64(width)/float64(barSlot(len(ws))), Y: limit})
					clipped.Labels = append(clipped.Labels, fmt.Sprintf("%.3g", g.Ratio))
				}
			}
		}
		bars, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return err
		}
		bars.LineStyle.Width = 0
		bars.Color = plotutil.Color(j)
		bars.Offset = width * vg.Length(off)
		p.Add(bars)
		p.Legend.Add(s, bars)
	}
	if len(clipped.XYs) > 0 {
		lab, err := plotter.NewLabels(clipped)
		if err != nil {
			return err
		}
		for i := range lab.TextStyle {
			lab.TextStyle[i].Font.Size = vg.Points(6)
			lab.TextStyle[i].Rotation = math.Pi / 2
			lab.TextStyle[i].YAlign = draw.YTop
		}
		p.Add(lab)
	}
	top = limit
	labels := make([]string, len(ws))
	for i, w := range ws {
		labels[i] = shortName(w)
	}
	p.NominalX(labels...)
	p.X.Tick.Label.Rotation = math.Pi / 5
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.Font.Size = vg.Points(7)
	p.Y.Min = 0
	// Headroom for the legend above the tallest bar.
	p.Y.Max = top * (1.1 + 0.04*float64(len(subs)))
	p.Legend.Left = false
	p.Legend.TextStyle.Font.Size = vg.Points(7)
	one := plotter.NewFunction(func(float64) float64 { return 1 })
	one.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(one)
	return save(p, file)
}

// barSlot approximates the points one workload group spans on the
// x axis, to place labels over clipped bars.
func barSlot(groups int) float64 {
	return math.Max(1, float64(Width-vg.Inch)/float64(max(groups, 1)))
}

// shortName drops the family prefix of a spec, or the folders of a file
// path, for axis labels.
func shortName(spec string) string {
	if !registeredName.MatchString(family(spec)) {
		return filepath.Base(spec)
	}
	if _, rest, ok := strings.Cut(spec, "/"); ok {
		return rest
	}
	return spec
}

// Scaling draws median planning time against buffer count on log-log axes,
// one line per strategy, with error bars from the fastest to the slowest
// sample. It uses the workload family with the most distinct sizes and
// reports false (writing nothing) when none has three.
func Scaling(file string, gs []*results.Group) (bool, error) {
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
		return false, nil
	}
	p := newPlot("Planning time vs size ("+best+")", "buffers (n)", "seconds per plan")
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: 1}
	type pt struct {
		n           int
		med, lo, hi float64
	}
	bySub := map[string][]pt{}
	var subs []string
	for _, g := range gs {
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
	for j, s := range subs {
		pts := bySub[s]
		// Several instances of one size: keep the median of medians.
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
			if m > 0 && pts[i].n > 0 {
				xys = append(xys, plotter.XY{X: float64(pts[i].n), Y: m})
				errs = append(errs, struct{ Low, High float64 }{m - lo, hi - m})
			}
			i = k
		}
		if len(xys) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return false, err
		}
		line.Color, points.Color = plotutil.Color(j), plotutil.Color(j)
		points.Shape = plotutil.Shape(j)
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{xys, errs})
		if err != nil {
			return false, err
		}
		eb.Color = plotutil.Color(j)
		p.Add(line, points, eb)
		p.Legend.Add(s, line, points)
	}
	p.Legend.Left = true
	p.Legend.TextStyle.Font.Size = vg.Points(7)
	return true, save(p, file)
}

// Distribution draws, for the instances of one workload family, a box plot
// of footprint / LB_load per strategy.
func Distribution(file string, gs []*results.Group, fam string) error {
	bySub := map[string][]float64{}
	var subs []string
	for _, g := range gs {
		if g.Kind != results.KindStrategy || g.OK == 0 || family(g.Workload) != fam {
			continue
		}
		if _, ok := bySub[g.Subject]; !ok {
			subs = append(subs, g.Subject)
		}
		bySub[g.Subject] = append(bySub[g.Subject], g.Ratio)
	}
	p := newPlot(fmt.Sprintf("Footprint / LB_load over %s instances", fam), "", "footprint / LB_load")
	for j, s := range subs {
		box, err := plotter.NewBoxPlot(vg.Points(18), float64(j), plotter.Values(bySub[s]))
		if err != nil {
			return err
		}
		box.FillColor = plotutil.Color(j)
		p.Add(box)
	}
	p.NominalX(subs...)
	p.X.Tick.Label.Rotation = math.Pi / 6
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.Font.Size = vg.Points(8)
	return save(p, file)
}

// Layout draws an offset plan as rectangles on time × address, with the
// live-bytes profile (whose peak is LB_load) as a line.
func Layout(file string, bufs []workloads.Buffer, offsets []int64, title string) error {
	p := newPlot(title, "task", "address")
	p.Y.Tick.Marker = byteTicks{}
	p.X.Tick.Marker = intTicks{}
	for i, b := range bufs {
		if b.Size == 0 {
			continue
		}
		x0, x1 := float64(b.First), float64(b.Last+1)
		y0, y1 := float64(offsets[i]), float64(offsets[i]+b.Size)
		poly, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		if err != nil {
			return err
		}
		c := plotutil.Color(i)
		poly.Color = color.NRGBA{R: c.(color.RGBA).R, G: c.(color.RGBA).G, B: c.(color.RGBA).B, A: 170}
		poly.LineStyle.Width = vg.Points(0.3)
		poly.LineStyle.Color = color.Black
		p.Add(poly)
	}
	if prof := liveProfile(bufs); len(prof) > 0 {
		line, err := plotter.NewLine(prof)
		if err != nil {
			return err
		}
		line.Color = color.Black
		line.Width = vg.Points(1.2)
		line.StepStyle = plotter.PostStep
		p.Add(line)
		p.Legend.Add("live bytes", line)
	}
	p.Y.Min = 0
	return save(p, file)
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

// TimelinePoint is the state of an allocator after one trace event.
type TimelinePoint struct {
	InUse, Reserved int64
}

// Timeline draws an allocator replay's requested bytes in use and reserved
// bytes over the trace's events.
func Timeline(file string, pts []TimelinePoint, title string) error {
	p := newPlot(title, "trace event", "bytes")
	p.Y.Tick.Marker = byteTicks{}
	p.X.Tick.Marker = intTicks{}
	inUse := make(plotter.XYs, len(pts))
	reserved := make(plotter.XYs, len(pts))
	for i, q := range pts {
		inUse[i] = plotter.XY{X: float64(i), Y: float64(q.InUse)}
		reserved[i] = plotter.XY{X: float64(i), Y: float64(q.Reserved)}
	}
	if len(pts) > 0 {
		lr, err := plotter.NewLine(reserved)
		if err != nil {
			return err
		}
		lr.Color = plotutil.Color(1)
		lr.Width = vg.Points(1.5)
		li, err := plotter.NewLine(inUse)
		if err != nil {
			return err
		}
		li.Color = plotutil.Color(0)
		li.Width = vg.Points(1)
		p.Add(lr, li)
		p.Legend.Add("reserved", lr)
		p.Legend.Add("in use (requested)", li)
	}
	p.Y.Min = 0
	// Headroom so the legend clears the reserved line.
	maxR := 0.0
	for _, q := range pts {
		maxR = max(maxR, float64(q.Reserved))
	}
	p.Y.Max = maxR * 1.2
	p.Legend.Left = true
	return save(p, file)
}

// byteTicks labels an axis of bytes at round multiples of a binary unit
// (KiB, MiB, GiB, ...).
type byteTicks struct{}

// Ticks returns about five labelled ticks between min and max.
func (byteTicks) Ticks(min, max float64) []plot.Tick {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	u, unit := 0, 1.0
	for unit*1024 <= max && u < len(units)-1 {
		unit *= 1024
		u++
	}
	step := niceStep((max - min) / unit / 5)
	var ticks []plot.Tick
	for v := math.Ceil(min/unit/step) * step; v <= max/unit*(1+1e-9); v += step {
		ticks = append(ticks, plot.Tick{Value: v * unit, Label: strconv.FormatFloat(v, 'g', 4, 64) + " " + units[u]})
	}
	return ticks
}

// niceStep rounds x up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	if x <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// intTicks labels an axis of counts without decimals.
type intTicks struct{}

// Ticks returns the default tick positions labelled as integers.
func (intTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(math.Round(ticks[i].Value), 'f', 0, 64)
		}
	}
	return ticks
}
