// Package plot draws membench's paper-style figures with gonum/plot, as
// PNG, SVG or PDF at a paper's column or page width: footprint / lower
// bound bars, planning-time scaling, offset-plan layouts, allocator
// timelines and ratio distributions. Every subject keeps one colour, marker
// and dash across the figures of a sweep, from a colour-blind-safe palette;
// legends sit below the plotting area.
package plot

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"membench/results"
)

// Size is a figure's size on paper.
type Size struct {
	Name          string
	Width, Height vg.Length
}

// The sizes figures are drawn at: one column of a two-column paper, or the
// width of the page.
var (
	Column = Size{"column", 3.5 * vg.Inch, 2.8 * vg.Inch}
	Page   = Size{"page", 7 * vg.Inch, 4 * vg.Inch}
)

// Sizes lists the sizes by name, as `membench plot --size` takes them.
var Sizes = []Size{Column, Page}

// SizeNamed returns the size called name.
func SizeNamed(name string) (Size, bool) {
	for _, s := range Sizes {
		if s.Name == name {
			return s, true
		}
	}
	return Size{}, false
}

// DPI is the resolution of PNG figures (print quality).
const DPI = 300

// Pixels returns the size in pixels of a PNG drawn at s.
func (s Size) Pixels() (w, h int) {
	return int(math.Round(float64(s.Width/vg.Inch) * DPI)), int(math.Round(float64(s.Height/vg.Inch) * DPI))
}

// PixelSize returns the size in pixels of the PNGs written at the default
// size.
func PixelSize() (w, h int) { return Page.Pixels() }

// Formats lists the file formats figures are written in.
var Formats = []string{"png", "svg", "pdf"}

// Kinds lists the kinds of figures, as `membench plot --kind` takes them.
var Kinds = []string{"footprint", "runtime", "scaling", "layout", "timeline", "distribution"}

// Options say which figures to draw and how.
type Options struct {
	// Kind draws only the figures of one kind ("" for all).
	Kind string
	// Workload and Subject choose the layout or timeline drawn (where
	// empty, the harness picks one).
	Workload, Subject string
	// Formats are the file formats written (default png).
	Formats []string
	// Size is the figure size (default Page).
	Size Size
	// Runtimes maps strategy specs, as recorded, to the runtime whose
	// planner they are (DESIGN §9), for the runtime figure; strategies
	// missing from it are left out of that figure.
	Runtimes map[string]string
	// Best is the best-known table the footprint / best-known figures
	// compare with, beyond the records' own (results.BestKnown); nil
	// for none.
	Best results.BestTable
}

// ParseFormats reads a comma-separated list of formats.
func ParseFormats(list string) ([]string, error) {
	var fs []string
	for _, f := range strings.Split(list, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if !slices.Contains(Formats, f) {
			return nil, fmt.Errorf("unknown figure format %q (valid: %s)", f, strings.Join(Formats, ", "))
		}
		if !slices.Contains(fs, f) {
			fs = append(fs, f)
		}
	}
	return fs, nil
}

func (o Options) formats() []string {
	if len(o.Formats) == 0 {
		return []string{"png"}
	}
	return o.Formats
}

func (o Options) size() Size {
	if o.Size.Width == 0 {
		return Page
	}
	return o.Size
}

// Write saves fig as dir/name.<format> for each format of o and returns
// the files written.
func (o Options) Write(fig *Figure, dir, name string) ([]string, error) {
	var files []string
	for _, f := range o.formats() {
		file := filepath.Join(dir, name+"."+f)
		if err := fig.Save(file, o.size()); err != nil {
			return files, err
		}
		files = append(files, file)
	}
	return files, nil
}

// FormatOf returns the figure format a file's extension names, or an error
// naming the file where it names none.
func FormatOf(file string) (string, error) {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(file), "."))
	if !slices.Contains(Formats, ext) {
		return "", fmt.Errorf("%s: unknown figure format %q (valid: %s)", file, ext, strings.Join(Formats, ", "))
	}
	return ext, nil
}

// Save writes fig to file at size s, in the format its extension names
// (.png, .svg or .pdf), atomically.
func (f *Figure) Save(file string, s Size) error {
	ext, err := FormatOf(file)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	switch ext {
	case "png":
		cv := vgimg.NewWith(vgimg.UseWH(s.Width, s.Height), vgimg.UseDPI(DPI))
		f.Draw(draw.New(cv))
		if _, err := (vgimg.PngCanvas{Canvas: cv}).WriteTo(&buf); err != nil {
			return err
		}
	case "svg":
		cv := vgsvg.New(s.Width, s.Height)
		f.Draw(draw.New(cv))
		if _, err := cv.WriteTo(&buf); err != nil {
			return err
		}
	case "pdf":
		cv := vgpdf.New(s.Width, s.Height)
		f.Draw(draw.New(cv))
		if _, err := cv.WriteTo(&buf); err != nil {
			return err
		}
	}
	return results.WriteFileAtomic(file, buf.Bytes())
}

// family is a workload spec without its parameters: the instances of one
// generator.
func family(spec string) string {
	name, _, _ := strings.Cut(spec, "?")
	return name
}

// WriteAll draws the figures of o.Kind (all of footprint, runtime,
// scaling and distribution when empty) that the records support into dir,
// and returns the files written: footprint-<group> per workload group and
// subject kind, runtime-<group> per workload group where o.Runtimes puts
// the strategies in two runtimes or more, scaling, and
// distribution-<family> for families with at least five instances. Layouts and timelines need plans and replays: the
// harness draws them.
func WriteAll(dir string, recs []results.Record, o Options) ([]string, error) {
	groups := results.Aggregate(recs, o.Best)
	st := NewStyles(recs)
	var files []string
	for _, d := range []struct {
		kind string
		draw func(string, []*results.Group, *Styles, Options) ([]string, error)
	}{{"footprint", footprints}, {"runtime", runtimeFigures}, {"scaling", scaling}, {"distribution", distributions}} {
		if o.Kind != "" && o.Kind != d.kind {
			continue
		}
		fs, err := d.draw(dir, groups, st, o)
		files = append(files, fs...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// figureGroup names the footprint figure a workload goes in: its
// registry family (zoo, synthetic), or "files" for workload files, whose
// first path element means nothing.
func figureGroup(spec string) string {
	if results.IsFile(spec) {
		return "files"
	}
	return strings.SplitN(family(spec), "/", 2)[0]
}
