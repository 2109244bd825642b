package kernel

import "math"

// GapWalk walks the free gaps left by spans sorted by offset, from
// address 0 upwards.
//
// A gap runs from the highest end seen so far (top) to the offset of the
// next span that starts at or above it; spans starting below top overlap
// what came before and open no gap. Gaps may be empty (a span starting
// exactly at top). After the last gap, top is the highest end over all
// spans (0 for none): where a buffer goes that no gap takes.
type GapWalk struct {
	spans []Comp
	i     int
	Top   int64 // the highest end seen so far
}

// NewGapWalk starts a walk over spans, which must be sorted by offset.
func NewGapWalk(spans []Comp) GapWalk { return GapWalk{spans: spans} }

// Next returns the next gap [start, end); ok is false when there is none
// left, and w.Top is then final.
func (w *GapWalk) Next() (start, end int64, ok bool) {
	for w.i < len(w.spans) {
		s := w.spans[w.i]
		w.i++
		start = w.Top
		w.Top = max(w.Top, s.Hi)
		if s.Lo >= start {
			return start, s.Lo, true
		}
	}
	return 0, 0, false
}

// FirstFit returns where a buffer of the given size goes under a
// first-fit rule: the aligned start of the lowest gap that holds it once
// its start is aligned up, else the aligned top of all spans.
func FirstFit(spans []Comp, size, align int64) int64 {
	w := NewGapWalk(spans)
	for {
		start, end, ok := w.Next()
		if !ok {
			return AlignUp(w.Top, align)
		}
		// The gap's whole length first: aligning costs a division.
		if end-start >= size {
			if a := AlignUp(start, align); end-a >= size {
				return a
			}
		}
	}
}

// BestFit looks for the smallest gap (by its whole length end-start) that
// holds a buffer of the given size once the gap's start is aligned up;
// among equally long gaps the lowest wins. It returns that aligned start
// and the gap's length, or found == false when no gap holds the buffer;
// top is the highest end of all spans either way. It is the one best-gap
// walker (through BestGap: TFLite's GreedyBySizeAssignment, XLA's heap);
// TFLite's SimpleMemoryArena differs on purpose (it compares what is left
// after aligning) and walks with GapWalk itself. The gaps are GapWalk's,
// walked inline: this is offset-greedy-by-size's inner loop.
func BestFit(spans []Comp, size, align int64) (off, length int64, found bool, top int64) {
	length = math.MaxInt64
	for _, s := range spans {
		start := top
		top = max(top, s.Hi)
		if s.Lo < start {
			continue // no gap: s overlaps what came before
		}
		if l := s.Lo - start; l >= size && l < length {
			if a := AlignUp(start, align); s.Lo-a >= size {
				off, length, found = a, l, true
			}
		}
	}
	return off, length, found, top
}

// BestGap is BestFit falling back to the top: the aligned start of the
// smallest gap that holds size (ties: the lowest), else the highest end
// of the spans (0 for none). Unaligned (align 1) over spans sorted by
// offset, it is TFLite's GreedyBySizeAssignment choice (the spans being
// the placed tensors' [offset, aligned end] in its list order, or their
// components); aligned, XLA's heap simulator's best fit.
func BestGap(spans []Comp, size, align int64) int64 {
	off, _, found, top := BestFit(spans, size, align)
	if !found {
		return top
	}
	return off
}

// AlignUp rounds x up to a multiple of align (align <= 1 leaves x as is).
func AlignUp(x, align int64) int64 {
	if align <= 1 {
		return x
	}
	return (x + align - 1) / align * align
}
