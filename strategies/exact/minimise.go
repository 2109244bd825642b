package exact

import (
	"math/rand/v2"
	"slices"
)

// probe is a capacity question below the best plan, kept paused between
// its turns so that no node of it is searched twice.
type probe struct {
	tr    *trial
	given int64 // the nodes given so far
	// restarts: the probe also searches with perturbed orders
	// (perturb): rs is the current restart, its gen-th, with rsGiven
	// nodes of its luby(gen) steps; perturbed counts the nodes of all
	// of them, tried their seeds.
	restarts  bool
	rs        *trial
	gen       int64
	rsGiven   int64
	perturbed int64
	tried     []uint64
}

// close gives up pr's searches.
func (pr *probe) close() {
	pr.tr.close()
	pr.dropRestart()
}

// dropRestart gives up pr's current restart.
func (pr *probe) dropRestart() {
	if pr.rs != nil {
		pr.rs.close()
		pr.rs = nil
	}
}

// traceEvent is one step of minimise, as its trace hears of it.
type traceEvent struct {
	// C is the capacity asked; Given the nodes its searches had had
	// before this step and Step those of the step; Nodes the nodes the
	// step spent, all its searches together.
	C, Given, Step, Nodes int64
	// Depth is the probe's depth below Top (capacity Top-(Depth-1)*quantum),
	// 0 for the question at slo.
	Depth, Top int64
	Res        outcome
	Lo, Hi     int64 // the bound and best footprint after the step
	Total      int64 // the nodes of the whole run after the step
	// Seed is the perturbation of the step's search, 0 for the static
	// orders (perturb).
	Seed uint64
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
//     step of its share. Most problems' optimum is their bound
//     (MiniMalloc's A-C, E-I and K), where this question is all that
//     counts;
//   - descending probes below the best plan, on a ladder of depths
//     (probeDepths): every capacity down to denseDepths quanta below the
//     best plan, then depths about a factor of sqrt(2) apart down to half
//     the gap to slo. The probe at depth d weighs 1/d: the probes take
//     base steps (two nodes a buffer for each order), the one with the
//     least nodes for its weight (given*d) going next, the deepest on a
//     tie. So each probe has, at any time, about its weight's share of
//     the probes' nodes, and a probe at depth d searches as `capacity=C`
//     would, about d*H times slower (H the sum of the weights, about 4
//     on MiniMalloc's D). Capacity searches take times that vary by
//     orders of magnitude from one capacity to the next, not in order
//     (MiniMalloc's D, TWA alone from the root: a plan within 1,025,024
//     in 8,533 nodes, 1,024,000 in 42,536, none within 1,028,096 in
//     60,000), so no probe may hold the others up; and a plan is most
//     often found a few quanta below the best (a poor first plan is
//     brought down by the deep probes, each of which has its first step
//     at once). A plan found at C lowers hi: the probes at C and above
//     are closed, those below keep what they searched while they are on
//     the new ladder or within 2*denseDepths of the top (the others are
//     closed, to bound memory), so a probe that had many nodes waits
//     until the new ones have had their share. A probe that fails
//     completely rules its capacity and all below it out; a probe at
//     the capacity slo comes to hands its search over to the question
//     at slo.
//
// Each probe also restarts (issue 24, fourth round): after its first
// step, which the static orders take, its steps go to searches whose
// static orders are perturbed (perturb) while they have had less than
// restartShare times the static orders' nodes. The restarts' lengths
// follow Luby's sequence in steps (luby); each takes the latest seed
// that found a plan and the probe has not tried, else a new one
// (nextSeed). A capacity search's cost is heavy-tailed in its order:
// from the root, TWA perturbed by 40 seeds found plans within 4,000
// nodes where the static order took 13,495 to 42,536 or found none in
// 40,000 (MiniMalloc's D at 1,024,000: 5 seeds, in 496 to 498 nodes;
// J at 1,026,048: 4 seeds, 441 to 1,215 nodes), and a seed that finds a
// plan at one capacity often finds one at others. A restart is as
// complete as the static search, so one that ends without a plan rules
// its capacity out too.
//
// The bands this replaced (issue 24) gave every capacity within a
// round's reach of three anchors the same limit, which doubled every
// round: on D the probe at 1,025,024 had 20,463 nodes of 735,000.
func (sv *solver) minimise() {
	var proof *probe // the question at slo
	limit := sv.baseLimit()
	var given int64 // the nodes the question at slo spent
	pool := map[int64]*probe{}
	var probesGiven int64
	defer func() {
		if proof != nil {
			proof.close()
		}
		for _, pr := range pool {
			pr.close()
		}
	}()
	// improvedAt is when the best plan last improved, in nodes since
	// start.
	start := sv.nodes
	lastHi, improvedAt := sv.hi, int64(0)
	// per only grows: see proofShare.
	per := int64(1)
	q := sv.in.quantum
	for sv.slo < sv.hi {
		if sv.hi < lastHi {
			lastHi, improvedAt = sv.hi, sv.nodes-start
		}
		per = max(per, proofShare(sv.nodes-start, improvedAt, int64(len(sv.in.size))))
		// Depth d asks top-(d-1)*q; depths 1..g ask capacities above slo.
		top := (sv.hi - 1) / q * q
		g := (top - sv.slo + q - 1) / q
		if sv.noProbes {
			g = 0
		}
		for c, pr := range pool {
			if c >= sv.hi || c < sv.slo || (c != sv.slo && (top-c)/q+1 > maxDepth(g)) {
				pr.close()
				delete(pool, c)
			}
		}
		if proof != nil && proof.tr.c != sv.slo {
			proof.close()
			proof = nil
		}
		if proof == nil {
			// A probe at the new slo hands over what it searched.
			if proof = pool[sv.slo]; proof != nil {
				delete(pool, sv.slo)
				proof.dropRestart()
				proof.restarts = false
			} else {
				proof = &probe{tr: sv.newTrial(sv.slo)}
			}
			// The orders' wins are counted at the probes' capacities;
			// at slo a plan leaves no room to spare, and the order that
			// finds it need not be the one that found them (MiniMalloc's
			// B: TWA and WAT found the first plans, TAW finds the one at
			// the bound).
			proof.tr.even = true
			limit = sv.baseLimit()
		}
		d := sv.nextProbe(pool, g, top, sv.baseLimit())
		if d == 0 || given*per <= probesGiven {
			// Its steps double, but never take it more than a base step
			// ahead of the probes: their steps are small, and a doubled
			// step would hold them up for as long as the whole search so
			// far.
			n := limit
			if d != 0 {
				n = min(limit, sv.baseLimit()+(probesGiven/per-given)/int64(len(orders)))
			}
			before := sv.nodes
			res := sv.stepProbe(proof, n, traceEvent{Top: top})
			given += sv.nodes - before
			if n == limit {
				limit *= 2
			}
			if res != aborted {
				proof.close()
				proof = nil
			}
		} else {
			c := top - (d-1)*q
			pr := pool[c]
			if pr == nil {
				pr = &probe{tr: sv.newTrial(c), restarts: true}
				pr.tr.contest = true
				pool[c] = pr
			}
			before := sv.nodes
			if res := sv.stepProbe(pr, sv.baseLimit(), traceEvent{Depth: d, Top: top}); res != aborted {
				pr.close()
				delete(pool, c)
			}
			probesGiven += sv.nodes - before
		}
		if sv.b.spent() || sv.b.nodes == 0 {
			return
		}
	}
}

// denseDepths is how many capacities below the best plan are all
// probed.
const denseDepths = 8

// maxDepth is the deepest probe for a gap of g depths (those above slo):
// half the gap, but at least denseDepths while the gap has room.
func maxDepth(g int64) int64 { return max((g+1)/2, min(g, denseDepths)) }

// ladderAfter returns the depth of the ladder after d: the probes
// minimise opens are at depths 1 to denseDepths, then each about sqrt(2)
// times the one before (11, 15, 21, 29, ...). A poor first plan is
// brought down as well by one probe in each range of depths as by all of
// them (most of them find a plan quickly), and the open probes stay few.
func ladderAfter(d int64) int64 {
	if d < denseDepths {
		return d + 1
	}
	return d * 1414 / 1000
}

// onLadder reports whether depth d is on the ladder (ladderAfter).
func onLadder(d int64) bool {
	l := int64(1)
	for l < d {
		l = ladderAfter(l)
	}
	return l == d
}

// nextProbe returns the depth of the probe that goes next, among the
// ladder's depths down to maxDepth(g) and the open probes, above slo:
// the one whose next step of step nodes would end with the least nodes
// for its weight 1/d ((given+step)*d, the order of weighted fair
// queueing), the deepest on a tie; 0 when there is none. A depth not
// probed yet has its first step before any probe has a second, the
// deepest first: while the best plan is poor, most probes find a plan
// at once, and the deepest gains the most (the plan then found lays the
// ladder out anew).
func (sv *solver) nextProbe(pool map[int64]*probe, g, top, step int64) int64 {
	q := sv.in.quantum
	var best, bestKey int64
	consider := func(d int64) {
		c := top - (d-1)*q
		if c <= sv.slo || d > maxDepth(g) {
			return
		}
		key := step // a probe's first step goes before any second
		if pr := pool[c]; pr != nil {
			key = (pr.given + step) * d
		}
		if best == 0 || key < bestKey || key == bestKey && d > best {
			best, bestKey = d, key
		}
	}
	for d := int64(1); d <= maxDepth(g); d = ladderAfter(d) {
		consider(d)
	}
	for c := range pool {
		if d := (top-c)/q + 1; !onLadder(d) {
			consider(d)
		}
	}
	return best
}

// proofShare returns the nodes the probes have together for each node
// of the question at slo, at nodes spent (since minimise began) with the
// best plan last improved at improved, for n buffers: one while the
// probes bring the best plan down; three (a quarter for the question at
// slo) once they stall, the best plan having stood longer than it took
// to find and at least 64 nodes a buffer. minimise keeps the quarter
// once it has come to it, even when a probe then finds a plan: a late
// plan is one quantum or a few below the best (MiniMalloc's D: 1,031,168,
// then 1,029,120 some 300,000 nodes later), which leaves the question at
// slo where it was. Capacity searches take times that are heavy-tailed
// and vary from one capacity to the next, so a stalled descent needs
// many probes each given many nodes. With a quarter throughout (and the
// former weights of the orders), MiniMalloc's A, B, E, F, G and I,
// whose optimum is their bound, took 1.9 to 2.8 times the nodes to prove
// it (the question at slo finds those plans).
func proofShare(spent, improved, n int64) int64 {
	if spent-improved <= max(improved, 64*n) {
		return 1
	}
	return 3
}

// stepProbe lets pr's question spend n more nodes and records what it
// ends with.
func (sv *solver) stepProbe(pr *probe, n int64, ev traceEvent) outcome {
	c := pr.tr.c
	before := sv.nodes
	tr := pr.tr
	if pr.restarts && pr.perturbed < restartShare*(pr.given-pr.perturbed) {
		if pr.rs != nil && pr.rsGiven >= luby(pr.gen)*n {
			pr.dropRestart()
		}
		if pr.rs == nil {
			pr.gen++
			pr.rs, pr.rsGiven = sv.newTrial(c), 0
			pr.rs.seed = sv.nextSeed(pr)
			pr.tried = append(pr.tried, pr.rs.seed)
			pr.rs.contest = true
		}
		tr = pr.rs
		pr.rsGiven += n
		pr.perturbed += n
	}
	res := sv.step(tr, n)
	if res == infeasible {
		// A search with perturbed orders is as complete as the others.
		sv.ruledOut(c)
	}
	if res == found && tr.seed != 0 {
		sv.won(tr.seed)
	}
	if sv.trace != nil {
		ev.C, ev.Given, ev.Step, ev.Nodes, ev.Res, ev.Lo, ev.Hi, ev.Total = c, pr.given, n, sv.nodes-before, res, sv.slo, sv.hi, sv.nodes
		ev.Seed = tr.seed
		sv.trace(ev)
	}
	pr.given += n
	return res
}

// restartShare is how many nodes of a probe its restarts get for each
// node of the static orders' search, which has the probe's first step
// and then one in four, for the capacities it finds in a few steps
// (MiniMalloc's J: 1,032,192 in 1,123 TWA nodes, 1,029,120 in 6,918;
// D: 1,031,168 in 801). Giving the static orders more first steps
// trades D for J: with the first two theirs, D's 1,024,000 came at
// 151,268 nodes (189,256 with one) but J's 1,029,120 not within
// 400,000 (378,281 with one); with the first four, J's came at 231,662
// and D's not within 500,000 (249,138 and 499,940 before restarts).
const restartShare = 3

// perturbSwap sets how much a restart's order is perturbed: each adjacent
// pair of the static order is swapped with probability 1/perturbSwap,
// in order, so a buffer may move further. At 1/16 restarts of TWA found
// plans on MiniMalloc's D at 1,024,000 in 5 of 40 seeds within 4,000
// nodes; at 1/4, none of 30 within 3,000.
const perturbSwap = 16

// perturb reorders ks, a static order of n buffers, for seed (not 0).
func perturb[T any](ks []T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, uint64(len(ks))))
	for i := 0; i+1 < len(ks); i++ {
		if rng.IntN(perturbSwap) == 0 {
			ks[i], ks[i+1] = ks[i+1], ks[i]
		}
	}
}

// maxWinners is how many winning seeds are kept.
const maxWinners = 8

// nextSeed returns the seed of pr's next restart: the latest seed that
// found a plan (won) and that pr has not tried, else one not used
// before. Seeds that find a plan at one capacity often find them at
// others (MiniMalloc's J, TWA: one seed at 1,033,216, 1,031,168,
// 1,028,096 and 1,026,048, within 1,100 nodes each).
func (sv *solver) nextSeed(pr *probe) uint64 {
	for _, w := range sv.winners {
		if !slices.Contains(pr.tried, w) {
			return w
		}
	}
	sv.seeds++
	return sv.seeds
}

// won records that a restart with seed found a plan.
func (sv *solver) won(seed uint64) {
	sv.winners = slices.DeleteFunc(sv.winners, func(w uint64) bool { return w == seed })
	sv.winners = slices.Insert(sv.winners, 0, seed)
	sv.winners = sv.winners[:min(len(sv.winners), maxWinners)]
}

// luby returns the i-th term (from 1) of Luby's universal sequence of
// restart lengths: 1, 1, 2, 1, 1, 2, 4, 1, ... (Luby, Sinclair and
// Zuckerman, 1993): within a log factor of the best fixed cutoff for
// any distribution of the searches' costs.
func luby(i int64) int64 {
	for k := int64(1); ; k++ {
		if i == 1<<k-1 {
			return 1 << (k - 1)
		}
		if i < 1<<k-1 {
			return luby(i - (1<<(k-1) - 1))
		}
	}
}
