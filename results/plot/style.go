package plot

import (
	"hash/fnv"
	"image/color"
	"slices"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"membench/results"
)

func rgb(v uint32) color.Color {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}
}

// Palette is the colour-blind-safe palette subjects are drawn in: the 8
// colours of Okabe and Ito ("Color Universal Design", 2008), yellow last
// as it shows least on white, then the 9 of Paul Tol's "muted" scheme.
// Beyond 17 subjects colours repeat, and lines tell them apart by dash
// pattern.
var Palette = []color.Color{
	rgb(0xE69F00), rgb(0x56B4E9), rgb(0x009E73), rgb(0x0072B2),
	rgb(0xD55E00), rgb(0xCC79A7), rgb(0x000000), rgb(0xF0E442),
	rgb(0xCC6677), rgb(0x332288), rgb(0xDDCC77), rgb(0x117733),
	rgb(0x88CCEE), rgb(0x882255), rgb(0x44AA99), rgb(0x999933),
	rgb(0xAA4499),
}

// shapes are the markers of line figures, so that subjects differ in
// grey-scale print too.
var shapes = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{},
	draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{},
	draw.PyramidGlyph{},
}

// dashes are the line patterns of each pass through the palette.
var dashes = [][]vg.Length{
	nil,
	{vg.Points(4), vg.Points(2)},
	{vg.Points(1), vg.Points(1.5)},
	{vg.Points(4), vg.Points(1.5), vg.Points(1), vg.Points(1.5)},
}

// Style is how one subject is drawn.
type Style struct {
	Color  color.Color
	Shape  draw.GlyphDrawer
	Dashes []vg.Length
}

func styleAt(i int) Style {
	return Style{
		Color:  Palette[i%len(Palette)],
		Shape:  shapes[i%len(shapes)],
		Dashes: dashes[i/len(Palette)%len(dashes)],
	}
}

// Styles gives every subject of a sweep a fixed style: strategies and
// allocators (which never share a figure) are each numbered in sorted
// order, so a subject looks the same in every figure of the sweep whatever
// order the config lists them in.
type Styles struct {
	index map[string]int
}

// NewStyles numbers the subjects of recs.
func NewStyles(recs []results.Record) *Styles {
	byKind := map[string][]string{}
	for _, r := range recs {
		if !slices.Contains(byKind[r.Kind], r.Subject) {
			byKind[r.Kind] = append(byKind[r.Kind], r.Subject)
		}
	}
	s := &Styles{index: map[string]int{}}
	for _, subs := range byKind {
		slices.Sort(subs)
		for i, sub := range subs {
			s.index[sub] = i
		}
	}
	return s
}

// Of returns the style of subject. A subject outside the sweep (or any
// subject, for a nil Styles: a figure drawn alone) gets a style from a
// stable hash of its spec.
func (s *Styles) Of(subject string) Style {
	if s != nil {
		if i, ok := s.index[subject]; ok {
			return styleAt(i)
		}
	}
	h := fnv.New32a()
	h.Write([]byte(subject))
	return styleAt(int(h.Sum32() % uint32(len(Palette))))
}
