package search

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

// Placer is OmniMalloc's FirstFitPlacer: it holds a problem's buffers and
// their conflicts and decodes a permutation of the buffers into a
// placement. Buffers are taken in the permutation's order; each goes at
// the lowest offset where it fits below, between or above the buffers
// already placed that are live with it (first_fit_offset over their
// spans sorted by offset). Fixed buffers are pins: placed before the
// first, never moved. Where a buffer has an alignment (the problem's or
// its own) its offset is aligned up inside the gap, a membench extension
// that leaves OmniMalloc's rule unchanged at alignment 1. A Placer is not
// safe for concurrent use.
//
// Up to listPairs conflicting pairs, the Placer keeps every buffer's
// conflict list, as OmniMalloc does. Past that (idealloc's Y_1 has 180
// million pairs, 1.4 GB of lists) it keeps none: a decode then finds the
// placed buffers live with each one through an index over time
// (kernel.FitIndex, which gives their address ranges merged into
// components), and conflicts are tested from the lifetimes. Both paths
// give the same offsets: the lowest first-fit offset depends only on the
// union of the occupied ranges and on where zero-size buffers sit, which
// merging closed ranges keeps (TestPlacerPathsAgree).
type Placer struct {
	Size  []int64
	align []int64 // nil: none
	pin   []int64 // workloads.NoOffset: free
	pins  bool    // whether any buffer is fixed
	bufs  []workloads.Buffer
	// With lists, the conflicts of i are nbr[start[i]:start[i+1]].
	start []int32
	nbr   []int32
	// Without lists: deg[i] is i's number of conflicts, and the index
	// path's spans and per-buffer tasks.
	deg   []int32
	tspan *kernel.TaskSpans
	tasks []kernel.Task
	proto *kernel.FitIndex
	mark  []bool
	dec   *Decoder // Place's and PlaceBelow's
}

// listPairs is the most conflicting pairs for which a Placer keeps
// conflict lists (8 bytes a pair): 32 MiB of lists.
const listPairs = 1 << 22

// NewPlacer indexes p's buffers: their sizes, alignments, fixed offsets
// and conflicts (two buffers conflict when both are live at a common
// task, workloads.Conflicts). It refuses fixed buffers that overlap, as
// OmniMalloc refuses colliding pins.
func NewPlacer(ctx context.Context, name string, p *workloads.Problem) (*Placer, error) {
	return newPlacer(ctx, name, p, listPairs)
}

// newPlacer is NewPlacer keeping conflict lists up to maxPairs pairs.
func newPlacer(ctx context.Context, name string, p *workloads.Problem, maxPairs int64) (*Placer, error) {
	if err := kernel.RecordError(name, p.Buffers); err != nil {
		return nil, err
	}
	n := len(p.Buffers)
	pl := &Placer{Size: make([]int64, n), pin: make([]int64, n), mark: make([]bool, n), bufs: p.Buffers}
	pl.dec = pl.NewDecoder()
	aligned := p.Alignment > 1 || p.Forms()&workloads.FormAlign != 0
	if aligned {
		pl.align = make([]int64, n)
	}
	for i, b := range p.Buffers {
		pl.Size[i] = b.Size
		pl.pin[i] = workloads.NoOffset
		if off, ok := p.FixedOf(i); ok {
			pl.pin[i] = off
			pl.pins = true
		}
		if aligned {
			pl.align[i] = p.AlignOf(i)
		}
	}
	byFirst := kernel.ByFirst(p.Buffers)
	firsts := make([]int64, n)
	for k, i := range byFirst {
		firsts[k] = int64(p.Buffers[i].First)
	}
	// pairs counts, and later returns, the later buffers in byFirst that
	// conflict with the one at position k: those starting by its last task.
	later := func(k int) int {
		last := int64(p.Buffers[byFirst[k]].Last)
		hi, _ := slices.BinarySearch(firsts[k+1:], last+1)
		return hi
	}
	var total int64
	for k := range byFirst {
		total += int64(later(k))
	}
	if err := pl.checkPins(name, byFirst, later); err != nil {
		return nil, err
	}
	if total > maxPairs {
		pl.indexPath(p.Buffers)
		return pl, ctx.Err()
	}
	deg := make([]int32, n+1)
	for k, i := range byFirst {
		deg[i] += int32(later(k))
		for _, j := range byFirst[k+1 : k+1+later(k)] {
			deg[j]++
		}
	}
	pl.start = make([]int32, n+1)
	for i := range n {
		pl.start[i+1] = pl.start[i] + deg[i]
	}
	pl.nbr = make([]int32, pl.start[n])
	fill := slices.Clone(pl.start[:n])
	for k, i := range byFirst {
		if k%kernel.CtxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		for _, j := range byFirst[k+1 : k+1+later(k)] {
			pl.nbr[fill[i]] = j
			fill[i]++
			pl.nbr[fill[j]] = i
			fill[j]++
		}
	}
	return pl, nil
}

// checkPins refuses two fixed buffers that overlap while both are live,
// naming the first such pair in byFirst order.
func (pl *Placer) checkPins(name string, byFirst []int32, later func(int) int) error {
	for k, a := range byFirst {
		if pl.pin[a] < 0 {
			continue
		}
		for _, b := range byFirst[k+1 : k+1+later(k)] {
			if pl.pin[b] >= 0 && pl.pin[a] < pl.pin[b]+pl.Size[b] && pl.pin[b] < pl.pin[a]+pl.Size[a] {
				return fmt.Errorf("%s: buffers %d and %d have fixed offsets %d and %d that overlap while both are live",
					name, a, b, pl.pin[a], pl.pin[b])
			}
		}
	}
	return nil
}

// indexPath sets the Placer up to decode through an index over time:
// the degrees from the lifetimes (the buffers starting by i's last task,
// less those ending before its first, less i itself) and one task each.
func (pl *Placer) indexPath(bufs []workloads.Buffer) {
	n := len(bufs)
	firsts, lasts := make([]int, n), make([]int, n)
	for i, b := range bufs {
		firsts[i], lasts[i] = b.First, b.Last
	}
	slices.Sort(firsts)
	slices.Sort(lasts)
	pl.deg = make([]int32, n)
	for i, b := range bufs {
		upTo, _ := slices.BinarySearch(firsts, b.Last+1)
		before, _ := slices.BinarySearch(lasts, b.First)
		pl.deg[i] = int32(upTo - before - 1)
	}
	pl.tspan = kernel.NewTaskSpans(bufs, false)
	pl.proto = kernel.NewFitIndex(pl.tspan, true)
	pl.tasks = make([]kernel.Task, n)
	for i, b := range bufs {
		pl.tasks[i] = pl.tspan.TaskOf(i, b.Size)
	}
}

// Len returns the number of buffers.
func (pl *Placer) Len() int { return len(pl.Size) }

// Conflicts returns the buffers conflicting with i, in a slice not to be
// changed. Without conflict lists it finds them by a scan of every
// buffer (and allocates).
func (pl *Placer) Conflicts(i int) []int32 {
	if pl.deg == nil {
		return pl.nbr[pl.start[i]:pl.start[i+1]]
	}
	out := make([]int32, 0, pl.deg[i])
	for j, b := range pl.bufs {
		if j != i && workloads.Conflicts(b, pl.bufs[i]) {
			out = append(out, int32(j))
		}
	}
	return out
}

// Degree returns the number of buffers conflicting with i.
func (pl *Placer) Degree(i int) int {
	if pl.deg != nil {
		return int(pl.deg[i])
	}
	return int(pl.start[i+1] - pl.start[i])
}

// Decoder decodes orders over a Placer with scratch of its own (the
// index over time, reused from one decode to the next): decoders of one
// Placer may run in separate goroutines at once, one decode each. A
// Placer's own Place, PlaceBelow and PlaceFrom share one Decoder.
type Decoder struct {
	pl    *Placer
	ix    *kernel.FitIndex // the index path's, built on first use
	spans []kernel.Comp    // the list path's
	seq   []kernel.Task    // the index path's tasks in the order decoded
	looks int
}

// NewDecoder returns a Decoder over pl.
func (pl *Placer) NewDecoder() *Decoder { return &Decoder{pl: pl} }

// look checks ctx every kernel.CtxCheckEvery placements.
func (d *Decoder) look(ctx context.Context) error {
	d.looks++
	if d.looks%kernel.CtxCheckEvery == 0 {
		return ctx.Err()
	}
	return nil
}

// Place decodes order (a permutation of the buffers) into offsets (one
// per buffer, indexed by buffer) and returns the peak: max(offset+size),
// 0 for none. It returns ctx's error if ctx is cancelled while it runs.
func (pl *Placer) Place(ctx context.Context, order []int32, offsets []int64) (int64, error) {
	return pl.PlaceBelow(ctx, order, offsets, math.MaxInt64)
}

// PlaceBelow is Place for a caller that keeps a plan only if its peak is
// below bound (random search, the best of several orders): as the peak
// reached so far never falls, it stops decoding once that is bound or
// more and returns it, offsets then partly decoded. Below bound it
// returns what Place returns.
func (pl *Placer) PlaceBelow(ctx context.Context, order []int32, offsets []int64, bound int64) (int64, error) {
	return pl.dec.PlaceBelow(ctx, order, offsets, bound)
}

// PlaceBelow is Placer.PlaceBelow with d's scratch.
func (d *Decoder) PlaceBelow(ctx context.Context, order []int32, offsets []int64, bound int64) (int64, error) {
	copy(offsets, d.pl.pin)
	return d.decode(ctx, order, offsets, bound)
}

// PlaceFrom is Place for an order whose positions before from hold what
// they held in an order prev decodes: those buffers keep their offsets in
// prev (first fit places a buffer by the ones before it alone), and the
// rest are decoded again. The plan is the one Place returns.
func (pl *Placer) PlaceFrom(ctx context.Context, order []int32, from int, prev, offsets []int64) (int64, error) {
	copy(offsets, prev)
	for _, idx := range order[from:] {
		offsets[idx] = pl.pin[idx]
	}
	return pl.dec.decode(ctx, order[from:], offsets, math.MaxInt64)
}

// decode places the buffers of order that are not placed in offsets,
// stopping once the peak is bound or more (PlaceBelow).
func (d *Decoder) decode(ctx context.Context, order []int32, offsets []int64, bound int64) (int64, error) {
	pl := d.pl
	if pl.deg != nil {
		return d.decodeIndexed(ctx, order, offsets, bound)
	}
	top := pl.placedPeak(offsets)
	for _, idx := range order {
		if pl.pin[idx] >= 0 {
			continue
		}
		if err := d.look(ctx); err != nil {
			return 0, err
		}
		spans := d.spans[:0]
		for _, j := range pl.nbr[pl.start[idx]:pl.start[idx+1]] {
			if o := offsets[j]; o >= 0 {
				spans = append(spans, kernel.Comp{Lo: o, Hi: o + pl.Size[j]})
			}
		}
		slices.SortFunc(spans, func(a, b kernel.Comp) int {
			if a.Lo != b.Lo {
				return cmpInt(a.Lo, b.Lo)
			}
			return cmpInt(a.Hi, b.Hi)
		})
		d.spans = spans
		o := kernel.FirstFit(spans, pl.Size[idx], pl.alignOf(idx))
		offsets[idx] = o
		if top = max(top, o+pl.Size[idx]); top >= bound {
			return top, nil
		}
	}
	return Peak(pl.Size, offsets), nil
}

// placedPeak is the peak of the buffers placed in offsets (offset >= 0).
func (pl *Placer) placedPeak(offsets []int64) int64 {
	var top int64
	for i, o := range offsets {
		if o >= 0 {
			top = max(top, o+pl.Size[i])
		}
	}
	return top
}

// decodeIndexed is decode through an index over time: every buffer
// already placed in offsets goes into the Decoder's index, emptied, then
// each buffer of order goes where first fit puts it among the ranges of
// those live with it (kernel.FitIndex.FirstFit, which stops at the first
// gap that holds it rather than merging them all).
func (d *Decoder) decodeIndexed(ctx context.Context, order []int32, offsets []int64, bound int64) (int64, error) {
	pl := d.pl
	top := pl.placedPeak(offsets)
	ix := d.index(offsets)
	// Each buffer's reads of the Placer's tables miss the cache (the
	// order is random): its task is read in a pass of its own, whose
	// loads do not wait on one another as they would between first fits
	// (on Y_1 the first fit's load of its task was about 6% of a decode),
	// its size read from there, and pins only where there are any.
	d.seq = d.seq[:0]
	for _, idx := range order {
		d.seq = append(d.seq, pl.tasks[idx])
	}
	for k, idx := range order {
		if pl.pins && pl.pin[idx] >= 0 {
			continue
		}
		if err := d.look(ctx); err != nil {
			return 0, err
		}
		t := &d.seq[k]
		o := ix.FirstFit(t, t.Size, pl.alignOf(idx))
		offsets[idx] = o
		if top = max(top, o+t.Size); top >= bound {
			return top, nil
		}
		ix.Place(t, kernel.Comp{Lo: o, Hi: o + t.Size})
	}
	return Peak(pl.Size, offsets), nil
}

// index returns the Decoder's index, emptied, with the buffers placed in
// offsets placed in it.
func (d *Decoder) index(offsets []int64) *kernel.FitIndex {
	pl := d.pl
	if d.ix == nil {
		d.ix = pl.proto.EmptyCopy()
	} else {
		d.ix.Reset()
	}
	for i, o := range offsets {
		if o >= 0 {
			d.ix.Place(&pl.tasks[i], kernel.Comp{Lo: o, Hi: o + pl.Size[i]})
		}
	}
	return d.ix
}

// alignOf returns buffer i's alignment (1: none).
func (pl *Placer) alignOf(i int32) int64 {
	if pl.align == nil {
		return 1
	}
	return pl.align[i]
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Peak returns max(offsets[i]+sizes[i]), 0 for none.
func Peak(sizes, offsets []int64) int64 {
	var peak int64
	for i, o := range offsets {
		peak = max(peak, o+sizes[i])
	}
	return peak
}

// PeakPositions returns the positions in order whose buffer tops out at
// peak (local_search.cpp's peak_positions over a placement listed in
// order): the targets of the peak-swap move.
func (pl *Placer) PeakPositions(order []int32, offsets []int64, peak int64, out []int) []int {
	out = out[:0]
	for pos, i := range order {
		if offsets[i]+pl.Size[i] == peak {
			out = append(out, pos)
		}
	}
	return out
}

// earlierNeighbours returns the positions before target in order whose
// buffer conflicts with the one at target, or every earlier position if
// none does (local_search.cpp's earlier_neighbors).
func (pl *Placer) earlierNeighbours(order []int32, target int, out []int) []int {
	t := order[target]
	out = out[:0]
	if pl.deg != nil {
		for pos := range target {
			if workloads.Conflicts(pl.bufs[order[pos]], pl.bufs[t]) {
				out = append(out, pos)
			}
		}
	} else {
		nb := pl.nbr[pl.start[t]:pl.start[t+1]]
		for _, j := range nb {
			pl.mark[j] = true
		}
		for pos := range target {
			if pl.mark[order[pos]] {
				out = append(out, pos)
			}
		}
		for _, j := range nb {
			pl.mark[j] = false
		}
	}
	if len(out) == 0 {
		for pos := range target {
			out = append(out, pos)
		}
	}
	return out
}

// Mover draws OmniMalloc's peak-swap moves (local_search.cpp's
// propose_peak_swap) from an MT64.
type Mover struct {
	pl     *Placer
	rng    *MT64
	nbrBuf []int
}

// NewMover returns a Mover over pl's conflicts drawing from rng.
func NewMover(pl *Placer, rng *MT64) *Mover { return &Mover{pl: pl, rng: rng} }

// Propose picks a position among peaks uniformly, then one of its
// earlier temporal neighbours uniformly, and returns both positions; ok
// is false when the target is at position 0 (nothing earlier to swap
// with). peaks must not be empty.
func (m *Mover) Propose(peaks []int, order []int32) (target, other int, ok bool) {
	target = peaks[m.rng.IntN(uint64(len(peaks)-1))]
	m.nbrBuf = m.pl.earlierNeighbours(order, target, m.nbrBuf)
	if len(m.nbrBuf) == 0 {
		return 0, 0, false
	}
	return target, m.nbrBuf[m.rng.IntN(uint64(len(m.nbrBuf)-1))], true
}

// IDs returns each buffer's id as OmniMalloc would print it (str(id)):
// its label where the problem has them, else its number.
func IDs(p *workloads.Problem) []string {
	ids := make([]string, len(p.Buffers))
	for i, b := range p.Buffers {
		if p.Labels != nil {
			ids[i] = p.Labels[i]
		} else {
			ids[i] = strconv.Itoa(b.ID)
		}
	}
	return ids
}
