package view

// Series is a level-of-detail pyramid over a series of int64 values (live
// bytes per task, reserved bytes per trace event): the minimum and maximum
// of every aligned block of 16, 32, 64, ... values, so that the minimum and
// maximum of any range take O(log n) and a zoom request costs its number of
// bins times that, whatever the series' length.
type Series struct {
	raw []int64
	// levels[k][i] covers raw[i*16<<k : (i+1)*16<<k].
	levels [][]MinMax
}

// MinMax is the least and greatest value of a range.
type MinMax struct{ Min, Max int64 }

func (a MinMax) join(b MinMax) MinMax {
	return MinMax{min(a.Min, b.Min), max(a.Max, b.Max)}
}

// leaf is the block length of the first level.
const leaf = 16

// NewSeries builds the pyramid over v, which it keeps.
func NewSeries(v []int64) *Series {
	s := &Series{raw: v}
	n := (len(v) + leaf - 1) / leaf
	if n <= 1 {
		return s
	}
	l0 := make([]MinMax, n)
	for i := range l0 {
		l0[i] = scan(v[i*leaf : min((i+1)*leaf, len(v))])
	}
	s.levels = append(s.levels, l0)
	for prev := l0; len(prev) > 1; {
		next := make([]MinMax, (len(prev)+1)/2)
		for i := range next {
			m := prev[2*i]
			if 2*i+1 < len(prev) {
				m = m.join(prev[2*i+1])
			}
			next[i] = m
		}
		s.levels = append(s.levels, next)
		prev = next
	}
	return s
}

func scan(v []int64) MinMax {
	m := MinMax{v[0], v[0]}
	for _, x := range v[1:] {
		m.Min = min(m.Min, x)
		m.Max = max(m.Max, x)
	}
	return m
}

// Len is the series' length.
func (s *Series) Len() int { return len(s.raw) }

// At returns value i.
func (s *Series) At(i int) int64 { return s.raw[i] }

// Range returns the minimum and maximum of values [lo, hi), which must be
// a non-empty range within the series.
func (s *Series) Range(lo, hi int) MinMax {
	// The ragged ends, up to the first and from the last leaf boundary.
	a, b := (lo+leaf-1)/leaf, hi/leaf
	if a >= b {
		return scan(s.raw[lo:hi])
	}
	m := MinMax{s.raw[lo], s.raw[lo]}
	if lo < a*leaf {
		m = m.join(scan(s.raw[lo : a*leaf]))
	}
	if b*leaf < hi {
		m = m.join(scan(s.raw[b*leaf : hi]))
	}
	// Leaves [a, b) bottom up, as a segment tree is read.
	for k := 0; a < b; k++ {
		lv := s.levels[k]
		if a&1 == 1 {
			m = m.join(lv[a])
			a++
		}
		if b&1 == 1 {
			b--
			m = m.join(lv[b])
		}
		a, b = a/2, b/2
	}
	return m
}

// Bin is one bin of a zoom request: values [Lo, Hi) and their extremes.
type Bin struct {
	Lo  int   `json:"lo"`
	Hi  int   `json:"hi"`
	Min int64 `json:"min"`
	Max int64 `json:"max"`
}

// Bins splits [lo, hi) (clipped to the series) into at most n bins of
// equal length but the last, and returns each bin's exact extremes. A range
// of at most n values gives one bin a value.
func (s *Series) Bins(lo, hi, n int) []Bin {
	lo, hi = max(lo, 0), min(hi, len(s.raw))
	if lo >= hi || n < 1 {
		return nil
	}
	step := (hi - lo + n - 1) / n
	out := make([]Bin, 0, (hi-lo+step-1)/step)
	for a := lo; a < hi; a += step {
		b := min(a+step, hi)
		m := s.Range(a, b)
		out = append(out, Bin{a, b, m.Min, m.Max})
	}
	return out
}
