package exact

import (
	"iter"
	"slices"
)

// run is one searcher's search of one part, as a coroutine that pauses
// each time it has spent the nodes it was given: resuming it goes on
// where it stopped, so a search given more nodes never repeats the ones
// it has spent.
type run struct {
	s engine
	// weight multiplies the nodes the run is given each turn.
	weight int64
	// order is the index in orders of a searcher's static order, -1 for
	// the other engines (solver.weight weighs the orders).
	order   int
	next    func() (struct{}, bool)
	stop    func()
	started bool
	done    bool
	res     outcome
}

// engine is a search of one part at one capacity: a searcher or a
// filler.
type engine interface {
	// solve searches part pt within capacity c, spending at most limit
	// nodes before it pauses; on found, offsets() holds the offsets of
	// pt's buffers, by search buffer.
	solve(pt *part, c, limit int64) outcome
	pacer() *pace
	offsets() []int64
}

func newRun(s engine, pt *part, c int64) *run {
	r := &run{s: s, weight: 1, order: -1}
	p := s.pacer()
	r.next, r.stop = iter.Pull(func(yield func(struct{}) bool) {
		p.yield = yield
		r.res = s.solve(pt, c, p.limit)
		p.yield = nil
	})
	return r
}

// step lets the search spend up to limit more nodes. It returns found or
// infeasible when the search ended so, aborted when it paused or the
// budget ended it.
func (r *run) step(limit int64) outcome {
	if r.done {
		return r.res
	}
	p := r.s.pacer()
	if r.started {
		p.limit = p.count + limit
	} else {
		p.limit, r.started = limit, true
	}
	if _, paused := r.next(); paused {
		return aborted
	}
	r.done = true
	return r.res
}

// bandWeight is the share of a banded run against one of the other
// runs: its fillers' nodes cost a fraction of a canonical search's, and
// where the bands lie apart it packs a part in about a node a buffer.
// A part of n buffers gives it n/64 where that is more: a canonical
// node there costs more with n (its place walks the buffers' overlaps),
// and the banded runs need more nodes before their first plan
// (pinwheel?n=1000&sizes=uniform: 120,564 nodes to prove at 4, 70,165
// at n/64).
const bandWeight = 4

// trial is the resumable question whether every part fits in capacity
// c. Parts are searched one after the other, each by one run per static
// order, taking turns.
type trial struct {
	c    int64
	offs []int64 // the plan so far: parts before pi are within c
	pi   int     // the part being searched
	runs []*run  // its runs, nil before they start
	// contest: an order that finds a plan in its first step wins when
	// the other orders, given as many nodes, do not (minimise's trials;
	// capacity mode stops at its first plan).
	contest bool
	// even: the orders share its nodes evenly whatever their wins
	// (minimise's question at slo).
	even bool
	// seed, when not 0, perturbs the static orders (a probe's restart,
	// minimise.go); its runs are then the orders' searches only.
	seed uint64
}

func (sv *solver) newTrial(c int64) *trial {
	return &trial{c: c, offs: slices.Clone(sv.offs)}
}

// close gives up the runs of the part being searched.
func (tr *trial) close() {
	for _, r := range tr.runs {
		r.stop()
	}
	tr.runs = nil
}

// alone lets the order runs of rest that have not started take a first
// step of lim nodes, and reports whether none of them finds a plan in
// it.
func (sv *solver) alone(rest []*run, lim int64) bool {
	for _, r := range rest {
		if r.order < 0 || r.started {
			continue
		}
		before := r.s.pacer().count
		res := r.step(lim)
		sv.nodes += r.s.pacer().count - before
		if res == found {
			return false
		}
	}
	return true
}

// step lets each order's search of the current part spend up to limit
// more nodes, weighted (solver.weight), going on to the next part when
// one succeeds. On found it adopts the plan if it is better than the
// best.
func (sv *solver) step(tr *trial, limit int64) outcome {
	in := sv.in
	for ; tr.pi < len(in.parts); tr.pi++ {
		pt := &in.parts[tr.pi]
		if tr.runs == nil {
			var top int64
			for _, k := range pt.bufs {
				top = max(top, tr.offs[in.idx[k]]+in.size[k])
			}
			if top <= tr.c {
				continue // the plan already fits this part
			}
			// A part with no slack at c that splits into bands has them
			// packed apart first, with fillers sweeping each way
			// (band.go): the quickest when they lie side by side, and
			// given up when one of them has no packing apart.
			if tr.seed == 0 && in.uniform && in.zeroSlack(pt, tr.c) && len(pt.bufs) <= maxFill {
				b, l := newBanded(in, pt, tr.c, false, false, sv.b)
				var es []engine
				switch {
				case b != nil:
					es = []engine{b, b.like(true, false), b.like(false, true), b.like(true, true)}
				case l != nil:
					// One band with no rectangles: pairings that split it.
					fwd, back := newSplitter(l, false, sv.b), newSplitter(l, true, sv.b)
					fwd.other, back.other = back, fwd
					es = []engine{fwd, back}
				}
				for _, e := range es {
					r := newRun(e, pt, tr.c)
					r.weight = max(bandWeight, int64(len(pt.bufs))/64)
					tr.runs = append(tr.runs, r)
				}
			}
			for x, h := range orders {
				s := newSearcher(in, h)
				s.b, s.seed = sv.b, tr.seed
				r := newRun(s, pt, tr.c)
				r.order = x
				tr.runs = append(tr.runs, r)
			}
			// A part with no slack at c takes a perfect packing: the
			// fillers sweep time each way.
			if tr.seed == 0 && in.uniform && in.zeroSlack(pt, tr.c) && len(pt.bufs) <= maxFill {
				for _, rev := range []bool{false, true} {
					f := newPartFiller(in, pt, rev)
					f.pacer().b = sv.b
					tr.runs = append(tr.runs, newRun(f, pt, tr.c))
				}

			}
		}
		res := aborted
		var winner engine
		weight := sv.weight
		if tr.even {
			weight = func(int) int64 { return 1 }
		}
		var wsum int64
		for x := range orders {
			wsum += weight(x)
		}
		for i, r := range tr.runs {
			before := r.s.pacer().count
			lim := limit * r.weight
			if r.order >= 0 {
				// limit is each order's nodes when they weigh the same.
				lim = max(1, limit*int64(len(orders))*weight(r.order)/wsum)
			}
			contested := r.started
			res = r.step(lim)
			sv.nodes += r.s.pacer().count - before
			if res == found && r.order >= 0 && (contested || tr.contest && sv.alone(tr.runs[i+1:], lim)) {
				sv.wins[r.order]++
			}
			if res != aborted {
				winner = r.s
				break
			}
			if sv.b.spent() || sv.b.nodes == 0 {
				break
			}
		}
		switch res {
		case infeasible:
			tr.close()
			return infeasible
		case aborted:
			return aborted
		}
		for _, k := range pt.bufs {
			tr.offs[in.idx[k]] = winner.offsets()[k]
		}
		tr.close()
	}
	fp := in.fixedTop
	for k, i := range in.idx {
		fp = max(fp, tr.offs[i]+in.size[k])
	}
	if fp < sv.hi {
		sv.offs, sv.hi = slices.Clone(tr.offs), fp
	}
	return found
}
