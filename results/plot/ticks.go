package plot

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// logTicks marks a log axis at powers of ten (and at 2 and 5 times them
// where the axis spans less than two decades), with minor ticks between,
// labelled by label.
type logTicks struct {
	label func(float64) string
}

// Ticks returns the ticks between min and max.
func (t logTicks) Ticks(min, max float64) []plot.Tick {
	if min <= 0 || max <= min {
		return nil
	}
	lo, hi := int(math.Floor(math.Log10(min))), int(math.Ceil(math.Log10(max)))
	labelled := map[int]bool{1: true}
	if math.Log10(max/min) <= 2 {
		labelled[2], labelled[5] = true, true
	}
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow(10, float64(e))
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			tk := plot.Tick{Value: v}
			if labelled[m] {
				tk.Label = t.label(v)
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// num formats x with at most three significant digits and no exponent.
func num(x float64) string {
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// countLabel writes a count as 500, 1k, 20k, 3M.
func countLabel(v float64) string {
	switch {
	case v >= 1e9:
		return num(v/1e9) + "G"
	case v >= 1e6:
		return num(v/1e6) + "M"
	case v >= 1e3:
		return num(v/1e3) + "k"
	}
	return num(v)
}

// secondsLabel writes a time in seconds as 50ns, 1µs, 20ms, 3s.
func secondsLabel(v float64) string {
	switch {
	case v >= 1:
		return num(v) + "s"
	case v >= 1e-3:
		return num(v*1e3) + "ms"
	case v >= 1e-6:
		return num(v*1e6) + "µs"
	}
	return num(v*1e9) + "ns"
}

// byteTicks labels an axis of bytes at round multiples of one binary unit
// (KiB, MiB, GiB, ...), about n of them (5 where n is 0).
type byteTicks struct{ n int }

// Ticks returns about n labelled ticks between min and max.
func (t byteTicks) Ticks(min, max float64) []plot.Tick {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	u, unit := 0, 1.0
	for unit*1024 <= max && u < len(units)-1 {
		unit *= 1024
		u++
	}
	n := t.n
	if n == 0 {
		n = 5
	}
	step := niceStep((max - min) / unit / float64(n))
	var ticks []plot.Tick
	for i := math.Ceil(min / unit / step); i*step <= max/unit*(1+1e-9); i++ {
		v := i * step
		ticks = append(ticks, plot.Tick{Value: v * unit, Label: strconv.FormatFloat(v, 'g', 4, 64) + " " + units[u]})
	}
	return ticks
}

// linearTicks labels a linear axis at about n round values (5 where n is
// 0), written by label (countLabel where nil: 1.5, 20, 5k, 10M).
type linearTicks struct {
	label func(float64) string
	n     int
}

// Ticks returns the ticks between min and max.
func (t linearTicks) Ticks(min, max float64) []plot.Tick {
	label := t.label
	if label == nil {
		label = countLabel
	}
	n := t.n
	if n == 0 {
		n = 5
	}
	step := niceStep((max - min) / float64(n))
	var ticks []plot.Tick
	for i := math.Ceil(min / step); i*step <= max*(1+1e-9); i++ {
		ticks = append(ticks, plot.Tick{Value: i * step, Label: label(i * step)})
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
