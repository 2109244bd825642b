package plot

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"membench/results"
	"membench/workloads"
)

// decodePNG reads a PNG and checks its size.
func decodePNG(t *testing.T, file string, s Size) image.Image {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	w, h := s.Pixels()
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("%s is %dx%d, want %dx%d", file, b.Dx(), b.Dy(), w, h)
	}
	return img
}

// checkBlankBorder fails where anything is drawn on the outermost pixels
// of img: a legend, label or title cut off at the figure's edge.
func checkBlankBorder(t *testing.T, file string, img image.Image) {
	t.Helper()
	b := img.Bounds()
	for x := b.Min.X; x < b.Max.X; x++ {
		for y := b.Min.Y; y < b.Max.Y; y++ {
			if x > b.Min.X+1 && x < b.Max.X-2 && y > b.Min.Y+1 && y < b.Max.Y-2 {
				continue
			}
			if r, g, bl, _ := img.At(x, y).RGBA(); r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				t.Errorf("%s: pixel (%d,%d) on the edge is drawn on: something is cut off", file, x, y)
				return
			}
		}
	}
}

// svgTexts returns the text elements of an SVG file.
func svgTexts(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	d := xml.NewDecoder(bytes.NewReader(data))
	in := false
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			in = tok.Name.Local == "text"
		case xml.CharData:
			if in {
				texts = append(texts, string(tok))
			}
		case xml.EndElement:
			in = false
		}
	}
	return texts
}

func sweepRecords() []results.Record {
	var recs []results.Record
	for _, w := range []struct {
		spec string
		n    int
	}{{"zoo/resnet-50", 100}, {"zoo/unet", 50}, {"synthetic/random-dag?n=100&seed=1", 100},
		{"synthetic/random-dag?n=1000&seed=1", 1000}, {"synthetic/random-dag?n=10000&seed=1", 10000},
		{"synthetic/random-dag?n=300&seed=1", 300}, {"synthetic/random-dag?n=3000&seed=1", 3000}} {
		for i, s := range []string{"naive", "offset-greedy-by-size", "equality"} {
			r := results.Record{Workload: w.spec, N: w.n, Subject: s, Kind: results.KindStrategy,
				Status: results.StatusOK, Footprint: int64(1000 * (3 - i)), LBLoad: 900, Ratio: float64(3-i) * 1000 / 900,
				TimesNs: []float64{float64(w.n * (i + 1)), float64(w.n*(i+1)) * 1.1}}
			if s == "naive" && w.n == 100 {
				r.Ratio = 40 // cut above the cap
			}
			if s == "equality" && w.n >= 3000 {
				r = results.Record{Workload: w.spec, N: w.n, Subject: s, Kind: results.KindStrategy, Status: results.StatusTimeout}
			}
			recs = append(recs, r)
		}
		recs = append(recs, results.Record{Workload: w.spec, N: w.n, Subject: "bfc", Kind: results.KindAllocator,
			Status: results.StatusOK, Footprint: 2000, LBLoad: 900, Ratio: 2000.0 / 900, TimesNs: []float64{50}})
	}
	return recs
}

func TestWriteAll(t *testing.T) {
	dir := t.TempDir()
	files, err := WriteAll(dir, sweepRecords(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
		checkBlankBorder(t, f, decodePNG(t, f, Page))
	}
	want := []string{"distribution-synthetic-random-dag.png", "footprint-allocators-synthetic.png",
		"footprint-allocators-zoo.png", "footprint-best-synthetic.png", "footprint-synthetic.png", "footprint-zoo.png", "scaling.png"}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Errorf("files = %v, want %v", names, want)
	}
	// One kind draws only its own figures.
	only, err := WriteAll(t.TempDir(), sweepRecords(), Options{Kind: "scaling"})
	if err != nil || len(only) != 1 || filepath.Base(only[0]) != "scaling.png" {
		t.Errorf("WriteAll(scaling) = %v, %v; want scaling.png alone", only, err)
	}
}

// TestFormatsAndSizes writes every format at column width: the PNG has
// the column's pixels, the SVG and PDF its size in points.
func TestFormatsAndSizes(t *testing.T) {
	dir := t.TempDir()
	files, err := WriteAll(dir, sweepRecords(), Options{Kind: "footprint", Formats: []string{"png", "svg", "pdf"}, Size: Column})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 15 {
		t.Fatalf("wrote %v, want 5 figures × 3 formats", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		switch filepath.Ext(f) {
		case ".png":
			checkBlankBorder(t, f, decodePNG(t, f, Column))
		case ".svg":
			if !bytes.Contains(data, []byte(`<svg width="252pt" height="201.6pt"`)) {
				t.Errorf("%s: not a 252 × 201.6 pt SVG:\n%.300s", f, data)
			}
		case ".pdf":
			if !bytes.HasPrefix(data, []byte("%PDF-")) || !bytes.Contains(data, []byte("/MediaBox [0 0 252.00 201.60]")) {
				t.Errorf("%s: not a 252 × 201.6 pt PDF", f)
			}
		}
	}
	if w, h := Column.Pixels(); w != 1050 || h != 840 {
		t.Errorf("column PNG is %dx%d pixels, want 1050x840 (3.5 × 2.8 in at 300 dpi)", w, h)
	}
	if _, err := ParseFormats("png,jpg"); err == nil || err.Error() != `unknown figure format "jpg" (valid: png, svg, pdf)` {
		t.Errorf("ParseFormats(png,jpg) = %v", err)
	}
	if fs, err := ParseFormats("PNG, svg,png"); err != nil || !slices.Equal(fs, []string{"png", "svg"}) {
		t.Errorf("ParseFormats = %v, %v; want [png svg]", fs, err)
	}
	fig, _ := LayoutFigure([]workloads.Buffer{{Size: 1, First: 0, Last: 0}}, []int64{0}, "x")
	if err := fig.Save(filepath.Join(dir, "x.gif"), Page); err == nil || !strings.Contains(err.Error(), `x.gif: unknown figure format "gif"`) {
		t.Errorf("Save(.gif) = %v", err)
	}
}

// svgFills returns the fill colours of an SVG's filled paths.
func svgFills(t *testing.T, file string) map[string]int {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fills := map[string]int{}
	for _, m := range regexp.MustCompile(`style="fill:(#[0-9A-F]{6})"`).FindAllSubmatch(data, -1) {
		fills[string(m[1])]++
	}
	return fills
}

func hex(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
}

// TestFootprintFigure reads the SVG back: short labels, one colour per
// subject (the same in every figure), × over each failed cell with a
// legend entry, and the value of a cut bar.
func TestFootprintFigure(t *testing.T) {
	dir := t.TempDir()
	o := Options{Kind: "footprint", Formats: []string{"svg"}}
	if _, err := WriteAll(dir, sweepRecords(), o); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "footprint-synthetic.svg")
	texts := svgTexts(t, file)
	for _, want := range []string{"random-dag n=100 s=1", "random-dag n=10000 s=1", "naive", "offset-greedy-by-size",
		"equality", "failed (timeout)", "40", "footprint / LB_load"} {
		if !slices.Contains(texts, want) {
			t.Errorf("%s lacks the text %q; has %q", file, want, texts)
		}
	}
	if n := strings.Count(strings.Join(texts, "\n"), failMark); n != 3 {
		t.Errorf("%s: %d failure marks, want 2 cells and the legend's", file, n)
	}
	// Subjects sorted: equality, naive, offset-greedy-by-size.
	st := NewStyles(sweepRecords())
	want := map[string]string{"equality": "#E69F00", "naive": "#56B4E9", "offset-greedy-by-size": "#009E73"}
	for s, c := range want {
		if got := hex(st.Of(s).Color); got != c {
			t.Errorf("colour of %s = %s, want %s", s, got, c)
		}
	}
	for _, f := range []string{"footprint-synthetic.svg", "footprint-zoo.svg"} {
		fills := svgFills(t, filepath.Join(dir, f))
		for s, c := range want {
			if fills[c] == 0 {
				t.Errorf("%s: no bar of %s in %s (fills %v)", f, s, c, fills)
			}
		}
	}
}

func TestStyles(t *testing.T) {
	// Every strategy of DESIGN §4, in two orders: the same distinct colours.
	subs := []string{"naive", "equality", "greedy-in-order", "greedy-by-breadth", "greedy-by-size",
		"greedy-best", "min-cost-flow", "offset-greedy-by-size"}
	var recs, rev []results.Record
	for _, s := range subs {
		recs = append(recs, results.Record{Subject: s, Kind: results.KindStrategy})
	}
	for i := range recs {
		rev = append(rev, recs[len(recs)-1-i])
	}
	rev = append(rev, results.Record{Subject: "bfc", Kind: results.KindAllocator})
	a, b := NewStyles(recs), NewStyles(rev)
	seen := map[string]string{}
	for _, s := range subs {
		c := hex(a.Of(s).Color)
		if o, dup := seen[c]; dup {
			t.Errorf("%s and %s share colour %s", s, o, c)
		}
		seen[c] = s
		if hex(b.Of(s).Color) != c {
			t.Errorf("%s: colour depends on the order of subjects", s)
		}
	}
	// Allocators are numbered apart: the first one gets the first colour.
	if c := hex(b.Of("bfc").Color); c != "#E69F00" {
		t.Errorf("bfc = %s, want the first colour", c)
	}
	// Drawn alone (or absent from the sweep): a colour from a stable hash
	// of the spec (FNV-1a, modulo the palette).
	var none *Styles
	for s, want := range map[string]string{"bfc": "#44AA99", "exec:./p.py": "#AA4499"} {
		if got := hex(none.Of(s).Color); got != want {
			t.Errorf("%s drawn alone: %s, want %s", s, got, want)
		}
		if got := hex(NewStyles(recs).Of(s).Color); got != want {
			t.Errorf("%s outside the sweep: %s, want %s", s, got, want)
		}
	}
	// Past the palette, lines differ by dash.
	if styleAt(0).Dashes != nil || styleAt(len(Palette)).Dashes == nil || hex(styleAt(len(Palette)).Color) != hex(styleAt(0).Color) {
		t.Error("the second pass through the palette is not dashed")
	}
	// The palette is Okabe–Ito's, then Tol's muted.
	var got []string
	for _, c := range Palette[:9] {
		got = append(got, hex(c))
	}
	if want := []string{"#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#000000", "#F0E442", "#CC6677"}; !slices.Equal(got, want) {
		t.Errorf("palette = %v, want %v", got, want)
	}
}

// TestLegendBelow checks that the legend and caption lie below the
// panels, inside the figure, and that nothing is cut at its edge.
func TestLegendBelow(t *testing.T) {
	recs := append(sweepRecords(), results.Record{Workload: "zoo/unet", N: 50, Kind: results.KindStrategy, Status: results.StatusOK,
		Subject:   "best-of?of=greedy-by-size,greedy-by-breadth,offset-greedy-by-size,min-cost-flow,greedy-in-order,equality",
		Footprint: 1000, LBLoad: 900, Ratio: 1000.0 / 900})
	groups := results.Aggregate(recs, nil)
	st := NewStyles(recs)
	fp, err := footprintFigure(groups, results.KindStrategy, measures[0], st, nil)
	if err != nil {
		t.Fatal(err)
	}
	sc, ok, err := scalingFigure(groups, st)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	for _, s := range Sizes {
		for _, f := range []*Figure{fp, sc} {
			cv := vgimg.NewWith(vgimg.UseWH(s.Width, s.Height), vgimg.UseDPI(DPI))
			c := draw.New(cv)
			panels, below := f.regions(c)
			if below.Max.Y > panels.Min.Y || below.Size().Y <= 0 {
				t.Errorf("%s: legend area %v is not below the panels %v", s.Name, below, panels)
			}
			data := f.panels[0][0].DataCanvas(draw.Canvas{Canvas: cv, Rectangle: panels})
			if data.Min.Y < panels.Min.Y {
				t.Errorf("%s: data area %v overlaps the legend", s.Name, data.Rectangle)
			}
			xs, rows, rowH := f.legendGrid(below.Size().X)
			if rows*len(xs) < len(f.legend) || vg.Length(rows)*rowH > below.Size().Y {
				t.Errorf("%s: %d legend entries in %d×%d cells of height %v: do not fit %v", s.Name, len(f.legend), rows, len(xs), rowH, below)
			}
			sty := textStyle(legendSize)
			for i, text := range f.legendTexts(below.Size().X) {
				if right := xs[i%len(xs)] + thumbW + gap + sty.Width(text); right > below.Size().X {
					t.Errorf("%s: legend entry %q ends at %v, past the width %v", s.Name, text, right, below.Size().X)
				}
			}
			f.Draw(c)
			var buf bytes.Buffer
			if _, err := (vgimg.PngCanvas{Canvas: cv}).WriteTo(&buf); err != nil {
				t.Fatal(err)
			}
			img, _ := png.Decode(&buf)
			checkBlankBorder(t, s.Name, img)
		}
	}
}

func TestScalingFigure(t *testing.T) {
	dir := t.TempDir()
	files, err := WriteAll(dir, sweepRecords(), Options{Kind: "scaling", Formats: []string{"svg"}})
	if err != nil || len(files) != 1 {
		t.Fatal(files, err)
	}
	texts := strings.Join(svgTexts(t, files[0]), "\n")
	for _, want := range []string{"Planning time vs size (random-dag)", "error bars: min–max over repeats × samples",
		"100\n", "1k\n", "10k\n", "1µs", "10µs", "time per plan", "equality (× timeout at n = 3k, 10k)"} {
		if !strings.Contains(texts, want) {
			t.Errorf("scaling figure lacks %q:\n%s", want, texts)
		}
	}
}

func TestDistributionNotesFailures(t *testing.T) {
	groups := results.Aggregate(sweepRecords(), nil)
	f, err := distributionFigure(groups, "synthetic/random-dag", NewStyles(sweepRecords()))
	if err != nil {
		t.Fatal(err)
	}
	if want := " Failed cells are left out: equality (× timeout on random-dag n=10000 s=1, random-dag n=3000 s=1)."; !strings.HasSuffix(f.caption, want) {
		t.Errorf("caption %q lacks %q", f.caption, want)
	}
}

func TestTicks(t *testing.T) {
	labels := func(tk logTicks, lo, hi float64) []string {
		var ls []string
		for _, x := range tk.Ticks(lo, hi) {
			if x.Label != "" {
				ls = append(ls, x.Label)
			}
		}
		return ls
	}
	for _, tc := range []struct {
		tk     logTicks
		lo, hi float64
		want   []string
	}{
		{logTicks{countLabel}, 90, 12000, []string{"100", "1k", "10k"}},
		{logTicks{countLabel}, 90, 3500, []string{"100", "200", "500", "1k", "2k"}},
		{logTicks{countLabel}, 900, 2.5e6, []string{"1k", "10k", "100k", "1M"}},
		{logTicks{secondsLabel}, 4e-8, 2, []string{"100ns", "1µs", "10µs", "100µs", "1ms", "10ms", "100ms", "1s"}},
		{logTicks{secondsLabel}, 1.5e-4, 3e-3, []string{"200µs", "500µs", "1ms", "2ms"}},
	} {
		if got := labels(tc.tk, tc.lo, tc.hi); !slices.Equal(got, tc.want) {
			t.Errorf("ticks on [%g, %g] = %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
	var bl []string
	for _, x := range (byteTicks{}).Ticks(0, 3<<20) {
		bl = append(bl, x.Label)
	}
	if want := []string{"0 MiB", "1 MiB", "2 MiB", "3 MiB"}; !slices.Equal(bl, want) {
		t.Errorf("byte ticks = %q, want %q", bl, want)
	}
}

func TestLayoutAndTimeline(t *testing.T) {
	dir := t.TempDir()
	bufs := []workloads.Buffer{{ID: 0, Size: 16, First: 0, Last: 1}, {ID: 1, Size: 8, First: 1, Last: 2}, {ID: 2, Size: 0, First: 2, Last: 2}}
	fig, err := LayoutFigure(bufs, []int64{0, 16, 0}, "layout")
	if err != nil {
		t.Fatal(err)
	}
	if err := fig.Save(filepath.Join(dir, "layout.png"), Page); err != nil {
		t.Fatal(err)
	}
	checkBlankBorder(t, "layout.png", decodePNG(t, filepath.Join(dir, "layout.png"), Page))
	var panels []TimelinePanel
	for i, s := range []string{"bfc", "pool", "bump", "first-fit", "best-fit", "buddy", "torch-caching"} {
		pts := []TimelinePoint{{16, 256, 256}, {24, int64(512 * (i + 1)), 256}, {8, 512, 256}, {0, 512, 0}}
		panels = append(panels, TimelinePanel{Subject: s, Points: pts})
	}
	tl, err := TimelineFigure("allocators", panels, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Seven panels on a 3×3 grid, one y range for all: the largest
	// reserved bytes (7×512) plus headroom.
	if len(tl.panels) != 3 || len(tl.panels[0]) != 3 || tl.panels[2][1] != nil {
		t.Fatalf("panels %d×%d, want 3×3 with 7 filled", len(tl.panels), len(tl.panels[0]))
	}
	for i, pn := range panels {
		p := tl.panels[i/3][i%3]
		if p.Y.Min != 0 || math.Abs(p.Y.Max-7*512*1.05) > 1e-9 || p.X.Max != 3 || p.Title.Text != pn.Subject {
			t.Errorf("panel %s: y [%v, %v], x max %v, title %q", pn.Subject, p.Y.Min, p.Y.Max, p.X.Max, p.Title.Text)
		}
	}
	if err := tl.Save(filepath.Join(dir, "timeline.svg"), Column); err != nil {
		t.Fatal(err)
	}
	texts := svgTexts(t, filepath.Join(dir, "timeline.svg"))
	for _, want := range []string{"allocators", "torch-caching", "bfc: reserved", "in use (requested)", "requested", "internal (rounding)", "external (free)"} {
		if !slices.Contains(texts, want) {
			t.Errorf("timeline lacks %q: %q", want, texts)
		}
	}
}

func TestFigureGroup(t *testing.T) {
	for _, tc := range []struct{ spec, group string }{
		{"zoo/resnet-50", "zoo"},
		{"synthetic/random-dag?n=100&seed=1", "synthetic"},
		{"../../strategies/testdata/tflite/complex.csv", "files"},
		{"/data/minimalloc/A.1048576.csv", "files"},
		{"trace.csv", "files"},
	} {
		if g := figureGroup(tc.spec); g != tc.group {
			t.Errorf("figureGroup(%q) = %q, want %q", tc.spec, g, tc.group)
		}
	}
}

func TestCapFor(t *testing.T) {
	for _, tc := range []struct {
		vals []float64
		want float64
	}{
		{nil, 1},
		{[]float64{0.5}, 1},
		{[]float64{1.2, 1.1, 1.3}, 1.3},
		{[]float64{1.2, 1.1, 1.3, 1.0, 1.1, 1.1e7}, 1.5 * 1.3},
		{[]float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 40, 50, 60, 70, 80, 90, 100}, 100},
		{[]float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 90, 100}, 4.5},
	} {
		if got := capFor(tc.vals); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("capFor(%v) = %v, want %v", tc.vals, got, tc.want)
		}
	}
}

// TestTimelineBands checks the stacked bands: requested from 0 to in use,
// internal from in use to allocated, external from allocated to reserved.
func TestTimelineBands(t *testing.T) {
	pts := []TimelinePoint{{InUse: 100, Allocated: 128, Reserved: 512}, {InUse: 300, Allocated: 384, Reserved: 1024}}
	bands, err := timelineBands(pts)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{100, 300, 0, 0}, {128, 384, 300, 100}, {512, 1024, 384, 128}}
	for i, b := range bands {
		var ys []float64
		for _, xy := range b.XYs[0] {
			ys = append(ys, xy.Y)
		}
		if !slices.Equal(ys, want[i]) {
			t.Errorf("band %d: y %v, want %v", i, ys, want[i])
		}
	}
}

// TestFootprintBestFigure draws footprint / best known for strategies only,
// starring the workloads whose best known is proved optimal.
func TestFootprintBestFigure(t *testing.T) {
	recs := []results.Record{
		{Workload: "zoo/a", N: 4, Hash: "h1", Subject: "greedy", Kind: results.KindStrategy, Status: results.StatusOK, Footprint: 1250, LBLoad: 900, Ratio: 1250.0 / 900},
		{Workload: "zoo/a", N: 4, Hash: "h1", Subject: "exact", Kind: results.KindStrategy, Status: results.StatusOK, Footprint: 1000, LBLoad: 900, Ratio: 1000.0 / 900, Bound: 1000, Optimal: true},
		{Workload: "zoo/b", N: 4, Hash: "h2", Subject: "greedy", Kind: results.KindStrategy, Status: results.StatusOK, Footprint: 600, LBLoad: 500, Ratio: 1.2},
		{Workload: "zoo/b", N: 4, Hash: "h2", Subject: "exact", Kind: results.KindStrategy, Status: results.StatusOK, Footprint: 550, LBLoad: 500, Ratio: 1.1, Bound: 520},
		{Workload: "zoo/b", N: 4, Hash: "h2", Subject: "bump", Kind: results.KindAllocator, Status: results.StatusOK, Footprint: 700, LBLoad: 500, Ratio: 1.4},
	}
	dir := t.TempDir()
	files, err := WriteAll(dir, recs, Options{Kind: "footprint", Formats: []string{"svg"}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	slices.Sort(names)
	if want := []string{"footprint-allocators-zoo.svg", "footprint-best-zoo.svg", "footprint-zoo.svg"}; !slices.Equal(names, want) {
		t.Fatalf("files %v, want %v (no footprint / best known for allocators)", names, want)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "footprint-best-zoo.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"a *", "footprint / best known"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("footprint-best-zoo.svg lacks %q", want)
		}
	}
	if strings.Contains(string(svg), "b *") {
		t.Error("b is starred, but its best known is not proved optimal")
	}
}
