package plot

import (
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Font sizes of a paper figure: legible at column width, and the same at
// page width so that figures of one paper match.
const (
	titleSize  = 9
	labelSize  = 8
	tickSize   = 7
	legendSize = 7
)

// margin is left blank around a figure, so that nothing touches its edge.
var margin = vg.Points(4)

// Figure is one figure: one or more panels (small multiples sharing a
// legend), the legend and a caption below them.
type Figure struct {
	// title heads a figure of several panels (a lone panel has its own).
	title string
	// panels are laid out in rows and columns.
	panels [][]*plot.Plot
	legend []legendEntry
	// caption says what the reader needs to read the figure (what error
	// bars are, what a mark means); it is wrapped to the figure's width.
	caption string
}

type legendEntry struct {
	text   string
	thumbs []plot.Thumbnailer
}

func single(p *plot.Plot) *Figure { return &Figure{panels: [][]*plot.Plot{{p}}} }

// addLegend adds an entry to the figure's legend.
func (f *Figure) addLegend(text string, thumbs ...plot.Thumbnailer) {
	f.legend = append(f.legend, legendEntry{text, thumbs})
}

func textStyle(size float64) draw.TextStyle {
	return draw.TextStyle{
		Color:   color.Black,
		Font:    font.From(plot.DefaultFont, vg.Points(size)),
		Handler: plot.DefaultTextHandler,
	}
}

// newPlot returns a panel with a paper's font sizes and a grid.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(titleSize)
	p.Title.Padding = vg.Points(3)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(labelSize)
		a.Tick.Label.Font.Size = vg.Points(tickSize)
		a.Label.Padding = vg.Points(2)
	}
	p.X.Label.Text = x
	p.Y.Label.Text = y
	g := plotterGrid()
	p.Add(g)
	return p
}

// regions splits the canvas into the panels' area and the area below it
// that holds the legend and the caption (empty when there are neither).
func (f *Figure) regions(c draw.Canvas) (panels, below vg.Rectangle) {
	r := draw.Crop(c, margin, -margin, margin, -margin).Rectangle
	if f.title != "" {
		r.Max.Y -= textStyle(titleSize).Height(f.title) + vg.Points(4)
	}
	h := f.belowHeight(r.Size().X)
	if h > 0 {
		h += vg.Points(4)
	}
	below = vg.Rectangle{Min: r.Min, Max: vg.Point{X: r.Max.X, Y: r.Min.Y + h}}
	r.Min.Y += h
	return r, below
}

// legendGrid lays the legend out row by row in as many columns as fit
// width, each column as wide as its widest entry; x holds the columns'
// left edges relative to the legend's.
func (f *Figure) legendGrid(width vg.Length) (x []vg.Length, rows int, rowH vg.Length) {
	if len(f.legend) == 0 {
		return nil, 0, 0
	}
	sty := textStyle(legendSize)
	w := make([]vg.Length, len(f.legend))
	for i, t := range f.legendTexts(width) {
		w[i] = thumbW + gap + sty.Width(t) + 3*gap
	}
	rowH = sty.Height("Xg") * 1.3
	for cols := len(f.legend); cols >= 1; cols-- {
		x = make([]vg.Length, cols+1)
		for c := 0; c < cols; c++ {
			colW := vg.Length(0)
			for i := c; i < len(w); i += cols {
				colW = max(colW, w[i])
			}
			x[c+1] = x[c] + colW
		}
		if x[cols] <= width || cols == 1 {
			return x[:cols], (len(f.legend) + cols - 1) / cols, rowH
		}
	}
	return nil, 0, 0
}

// legendTexts returns the legend's texts, each cut short with an
// ellipsis where it would not fit the width of the figure.
func (f *Figure) legendTexts(width vg.Length) []string {
	sty := textStyle(legendSize)
	room := width - thumbW - gap
	texts := make([]string, len(f.legend))
	for i, e := range f.legend {
		t := []rune(e.text)
		for len(t) > 1 && sty.Width(string(t)) > room {
			t = append(t[:len(t)-2], '…')
		}
		texts[i] = string(t)
	}
	return texts
}

var (
	thumbW = vg.Points(10)
	gap    = vg.Points(3)
)

// captionLines wraps the caption to width.
func (f *Figure) captionLines(width vg.Length) []string {
	if f.caption == "" {
		return nil
	}
	sty := textStyle(legendSize)
	var lines []string
	line := ""
	for _, w := range strings.Fields(f.caption) {
		if line != "" && sty.Width(line+" "+w) > width {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

func (f *Figure) belowHeight(width vg.Length) vg.Length {
	_, rows, rowH := f.legendGrid(width)
	sty := textStyle(legendSize)
	return vg.Length(rows)*rowH + vg.Length(len(f.captionLines(width)))*sty.Height("Xg")*1.2
}

// Draw draws the figure on c.
func (f *Figure) Draw(c draw.Canvas) {
	area, below := f.regions(c)
	if f.title != "" {
		sty := textStyle(titleSize)
		sty.XAlign = draw.XCenter
		sty.YAlign = draw.YTop
		c.FillText(sty, vg.Point{X: (area.Min.X + area.Max.X) / 2, Y: c.Max.Y - margin}, f.title)
	}
	pc := draw.Canvas{Canvas: c.Canvas, Rectangle: area}
	if len(f.panels) == 1 && len(f.panels[0]) == 1 {
		f.panels[0][0].Draw(pc)
	} else {
		tiles := draw.Tiles{Rows: len(f.panels), Cols: len(f.panels[0]), PadX: vg.Points(6), PadY: vg.Points(4)}
		cs := plot.Align(f.panels, tiles, pc)
		for i, row := range f.panels {
			for j, p := range row {
				if p != nil {
					p.Draw(cs[i][j])
				}
			}
		}
	}
	f.drawBelow(c, below)
}

// drawBelow draws the legend in a grid and the caption under it.
func (f *Figure) drawBelow(c draw.Canvas, r vg.Rectangle) {
	width := r.Size().X
	xs, rows, rowH := f.legendGrid(width)
	texts := f.legendTexts(width)
	sty := textStyle(legendSize)
	sty.YAlign = draw.YCenter
	top := r.Max.Y
	for i, e := range f.legend {
		col, row := i%len(xs), i/len(xs)
		x := r.Min.X + xs[col]
		y := top - vg.Length(row+1)*rowH
		icon := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x, Y: y + rowH*0.15},
			Max: vg.Point{X: x + thumbW, Y: y + rowH*0.85},
		}}
		for _, t := range e.thumbs {
			t.Thumbnail(&icon)
		}
		c.FillText(sty, vg.Point{X: x + thumbW + gap, Y: y + rowH/2}, texts[i])
	}
	cap := textStyle(legendSize)
	cap.YAlign = draw.YTop
	y := top - vg.Length(rows)*rowH
	for _, l := range f.captionLines(width) {
		c.FillText(cap, vg.Point{X: r.Min.X, Y: y}, l)
		y -= cap.Height("Xg") * 1.2
	}
}
