package exact

import "slices"

// probe is a capacity question below the best plan, kept paused between
// its turns so that no node of it is searched twice.
type probe struct {
	tr    *trial
	given int64 // the nodes given so far
}

// band is a range of depths below the best plan, in quanta: depth d asks
// for a plan within top-(d-1)*quantum, top being the highest multiple of
// the quantum below hi. Band j holds the depths [2^j, 2^(j+1)).
type band struct {
	// lo, hi are the depths it asks: [lo, hi).
	lo, hi int64
	// anchor is the depth it asks first. Round r asks the depths within
	// r of the anchor, in the order anchor, anchor-1, anchor+1,
	// anchor-2, ... (cursor counts them), each up to limit nodes,
	// which doubles every round.
	anchor, r, cursor, limit int64
	// given is the nodes its probes spent so far, kept when the bands
	// are laid out anew.
	given int64
	// done: every depth of the band reaches slo.
	done bool
}

// traceEvent is one step of minimise, as its trace hears of it.
type traceEvent struct {
	// C is the capacity asked; Given the nodes each of its searches had
	// had before this step and Step those of the step; Nodes the nodes
	// the step spent, all its searches together.
	C, Given, Step, Nodes int64
	// Band is the band that asked (-1: the question at slo): it asks
	// the depths [BandLo, BandHi) below Top (depth d: capacity
	// Top-(d-1)*quantum) above slo, in this round those within R of
	// Anchor, at Limit nodes each.
	Band                                  int
	Top, BandLo, BandHi, Anchor, R, Limit int64
	Res                                   outcome
	Lo, Hi                                int64 // the bound and best footprint after the step
}

// minimise narrows [lo, hi] until the bounds meet or the budget ends.
//
// It asks capacity questions the way feasibility mode does, each resumed
// where it stopped with more nodes, and shares the nodes among:
//
//   - the question at slo, the lowest capacity not yet ruled out, where a
//     plan would be optimal and a complete search that fails raises the
//     bound: half the nodes, a quarter once the probes below stall
//     (proofShare), in steps that double but keep it within a base
//     step of its share. Most
//     problems' optimum is their bound (MiniMalloc's A-C, E-I and K),
//     where this question is all that counts;
//   - descending probes below the best plan, sharing the rest
//     equally among three bands of depth below it: to a 16th of the gap
//     to slo, to a quarter and to half of it (each at least one
//     capacity deep while the gap has room; only multiples of the
//     quantum are asked). Each band has an anchor (a 32nd, an 8th and
//     three 8ths of the gap down: where the former schedule put its
//     three probes, which is what brings a poor first plan down fast)
//     and asks in rounds: round r gives the capacities within r of the
//     anchor, anchor first, nodes up to a limit that doubles every
//     round. Capacity searches take times that vary by orders of
//     magnitude from one capacity to the next, and not in order
//     (MiniMalloc's J: a plan within 1,036,288 in 781 nodes, none within
//     1,034,240 or 1,038,336 in 60,000), so a probe on a hard capacity
//     is paused (not closed) when it has had the round's limit, while
//     its neighbours have their turn; the former schedule doubled its
//     three probes until they ended, and on J, after 1,036,288, sat for
//     good on 1,034,240, 1,030,144 and 1,017,856. A plan found at C
//     lowers hi: the probes at C and above are closed, those below keep
//     what they searched (while a band's range holds them: the others
//     are closed, to bound memory), and the bands are laid out anew for
//     the smaller gap, from round 0 (a probe that had more than a round's
//     limit waits until the limit passes it). A probe that fails
//     completely rules its capacity and all below it out; a probe at
//     the capacity slo comes to hands its search over to the question
//     at slo.
//
// So a probe at the anchor searches as `capacity=C` would, about 2r+1
// times slower in round r than the former probes, and one r away from it
// is reached in round r, with the limit base*2^r.
func (sv *solver) minimise() {
	var proof *probe // the question at slo
	limit := sv.baseLimit()
	var given int64 // the nodes the question at slo spent
	pool := map[int64]*probe{}
	bands := make([]*band, len(bandEdges))
	for j := range bands {
		bands[j] = &band{}
	}
	var bandsGiven int64
	defer func() {
		if proof != nil {
			proof.tr.close()
		}
		for _, pr := range pool {
			pr.tr.close()
		}
	}()
	// top is the highest capacity the bands ask, below hi; bslo the slo
	// they were laid out for.
	top, bslo := int64(-1), int64(-1)
	// improvedAt is when the best plan last improved, in nodes since
	// start.
	start := sv.nodes
	lastHi, improvedAt := sv.hi, int64(0)
	for sv.slo < sv.hi {
		if sv.hi < lastHi {
			lastHi, improvedAt = sv.hi, sv.nodes-start
		}
		per := proofShare(sv.nodes-start, improvedAt, int64(len(sv.in.size)))
		q := sv.in.quantum
		if t := (sv.hi - 1) / q * q; t != top || sv.slo != bslo {
			// The gap moved: the bands start again from their tops.
			top, bslo = t, sv.slo
			sv.layBands(bands, top)
		}
		for c, pr := range pool {
			// Those no band asks now are closed too, so that memory
			// stays bounded by the bands' reach.
			d := (top-c)/q + 1
			asked := false
			for _, bd := range bands {
				asked = asked || bd.lo <= d && d < bd.hi
			}
			if c >= sv.hi || c < sv.slo || (!asked && c != sv.slo) {
				pr.tr.close()
				delete(pool, c)
			}
		}
		if proof != nil && proof.tr.c != sv.slo {
			proof.tr.close()
			proof = nil
		}
		if proof == nil {
			// A probe at the new slo hands over what it searched.
			if proof = pool[sv.slo]; proof != nil {
				delete(pool, sv.slo)
			} else {
				proof = &probe{tr: sv.newTrial(sv.slo)}
			}
			limit = sv.baseLimit()
		}
		// The question at slo has its share of the nodes, the bands
		// share the rest equally; the one least ahead goes next, the deepest band
		// on a tie (a plan found there gains the most).
		var bd *band
		for _, o := range bands {
			if !o.done && (bd == nil || o.given <= bd.given) {
				bd = o
			}
		}
		if bd == nil || given*per <= bandsGiven {
			// Its steps double, but never take it more than a base step
			// ahead of the bands: the bands' steps are small, and a
			// doubled step would hold them up for as long as the whole
			// search so far.
			n := limit
			if bd != nil {
				n = min(limit, sv.baseLimit()+(bandsGiven/per-given)/int64(len(orders)))
			}
			before := sv.nodes
			res := sv.stepProbe(proof, n, traceEvent{Band: -1})
			given += sv.nodes - before
			if n == limit {
				limit *= 2
			}
			if res != aborted {
				proof.tr.close()
				proof = nil
			}
		} else {
			before := sv.nodes
			ok := sv.stepBand(bd, top, pool, traceEvent{Band: slices.Index(bands, bd)})
			bd.done = !ok
			bd.given += sv.nodes - before
			bandsGiven += sv.nodes - before
		}
		if sv.b.spent() || sv.b.nodes == 0 {
			return
		}
	}
}

// proofShare returns the nodes the bands have together for each node of
// the question at slo, at nodes spent (since minimise began) with the
// best plan last improved at improved, for n buffers: one while the
// probes bring the best plan down; three (a quarter for the question at
// slo) once they stall, the best plan having stood longer than it took
// to find and at least 64 nodes a buffer. Capacity searches take times
// that are heavy-tailed and vary from one capacity to the next, so a
// stalled descent needs many probes each given many nodes. With a half
// throughout (as before issue 24), D and J ended at the same plans with
// 200,000 nodes or 500,000 (D) and 105,000 or 300,000 (J); with a quarter
// throughout, and the orders weighted by their wins (solver.weight), J
// reached 1,029,120 in 300,000 nodes and D 1,029,120 in 500,000, but
// MiniMalloc's A, B, E, F, G and I, whose optimum is their bound, took
// 1.9 to 2.8 times the nodes to prove it (the question at slo finds
// those plans).
func proofShare(spent, improved, n int64) int64 {
	if spent-improved <= max(improved, 64*n) {
		return 1
	}
	return 3
}

// bandEdges are the deep ends of the bands, in thousandths of the gap;
// bandAnchors where they ask first.
var (
	bandEdges   = []int64{62, 250, 500}
	bandAnchors = []int64{31, 125, 375}
)

// layBands lays the bands out below top, for the gap down to slo: band j
// holds the depths from the end of band j-1 (1 for the first) to
// bandEdges[j] thousandths of the gap, at least one depth each while the
// gap has room. A band keeps the nodes it was given; it starts from its
// top with the base limit.
func (sv *solver) layBands(bands []*band, top int64) {
	q := sv.in.quantum
	// Depths 1..g ask capacities above slo.
	g := (top - sv.slo + q - 1) / q
	if sv.noProbes {
		g = 0
	}
	lo := int64(1)
	wasDone := make([]bool, len(bands))
	for j, bd := range bands {
		wasDone[j] = bd.done || bd.limit == 0
		hi := min(max(lo+1, 1+g*bandEdges[j]/1000), g+1)
		a := min(max(lo, 1+g*bandAnchors[j]/1000), hi-1)
		*bd = band{lo: lo, hi: hi, anchor: a, limit: sv.baseLimit(), given: bd.given, done: lo >= hi}
		lo = max(lo, hi)
	}
	// A band that was done starts level with the others.
	var least int64 = -1
	for j, bd := range bands {
		if !bd.done && !wasDone[j] && (least < 0 || bd.given < least) {
			least = bd.given
		}
	}
	for j, bd := range bands {
		if !bd.done && wasDone[j] && least >= 0 {
			bd.given = least
		}
	}
}

// stepBand gives the next capacity of band bd, below top, the nodes its
// limit allows; it returns false when the band has no capacity left
// above slo.
func (sv *solver) stepBand(bd *band, top int64, pool map[int64]*probe, ev traceEvent) bool {
	q := sv.in.quantum
	for range 2 {
		// Once round at most before the next round.
		for ; bd.cursor <= 2*bd.r; bd.cursor++ {
			d := bd.anchor + (bd.cursor+1)/2
			if bd.cursor%2 == 1 {
				d = bd.anchor - (bd.cursor+1)/2
			}
			c := top - (d-1)*q
			if d < bd.lo || d >= bd.hi || c <= sv.slo {
				continue
			}
			pr := pool[c]
			if pr == nil {
				pr = &probe{tr: sv.newTrial(c)}
				pool[c] = pr
			}
			if pr.given >= bd.limit {
				continue
			}
			n := bd.limit - pr.given
			ev.Top, ev.BandLo, ev.BandHi, ev.Anchor, ev.R, ev.Limit = top, bd.lo, bd.hi, bd.anchor, bd.r, bd.limit
			if res := sv.stepProbe(pr, n, ev); res != aborted {
				pr.tr.close()
				delete(pool, c)
			}
			bd.cursor++
			return true
		}
		if top-(bd.lo-1)*q <= sv.slo {
			return false
		}
		bd.cursor = 0
		// The round reaches no farther than the band.
		if bd.anchor-bd.r > bd.lo || bd.anchor+bd.r < bd.hi-1 {
			bd.r++
		}
		bd.limit *= 2
	}
	return true
}

// stepProbe lets pr's question spend n more nodes and records what it
// ends with.
func (sv *solver) stepProbe(pr *probe, n int64, ev traceEvent) outcome {
	c := pr.tr.c
	before := sv.nodes
	res := sv.step(pr.tr, n)
	if res == infeasible {
		sv.ruledOut(c)
	}
	if sv.trace != nil {
		ev.C, ev.Given, ev.Step, ev.Nodes, ev.Res, ev.Lo, ev.Hi = c, pr.given, n, sv.nodes-before, res, sv.slo, sv.hi
		sv.trace(ev)
	}
	pr.given += n
	return res
}
