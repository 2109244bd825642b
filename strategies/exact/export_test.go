package exact

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"membench/strategies"
	"membench/workloads"
)

// FillPlan runs the filler alone, sweeping one way, on every part of p
// at capacity c, each of which must have no slack at c. It returns the
// offsets (in p's order) and true when every part was packed, false when
// some part was proved impossible.
func FillPlan(p *workloads.Problem, c int64, rev bool) ([]int64, bool, error) {
	return packParts(p, c, func(in *instance, pt *part) (engine, int64) {
		return newPartFiller(in, pt, rev), 1 << 62
	})
}

// packParts packs every part of p, which must have no slack at c, with
// the engine and node limit each gets from pack (nil: not packed).
func packParts(p *workloads.Problem, c int64, pack func(*instance, *part) (engine, int64)) ([]int64, bool, error) {
	in, err := newInstance(context.Background(), p)
	if err != nil {
		return nil, false, err
	}
	offs := make([]int64, len(p.Buffers))
	for i := range in.parts {
		pt := &in.parts[i]
		if !in.zeroSlack(pt, c) {
			return nil, false, fmt.Errorf("part %d has slack at %d", i, c)
		}
		e, limit := pack(in, pt)
		if e == nil {
			return nil, false, nil
		}
		if e.pacer().b == nil {
			e.pacer().b = &budget{ctx: context.Background(), nodes: -1}
		}
		switch e.solve(pt, c, limit) {
		case infeasible:
			return nil, false, nil
		case aborted:
			return nil, false, fmt.Errorf("part %d: aborted", i)
		}
		for _, k := range pt.bufs {
			offs[in.idx[k]] = e.offsets()[k]
		}
	}
	return offs, true, nil
}

// WindowBound returns the bound exact proves for p from LB_load, the
// quantum and the window bounds alone, spending at most nodes on the
// windows, and the quantum.
func WindowBound(p *workloads.Problem, nodes int64) (int64, int64, error) {
	ctx := context.Background()
	in, err := newInstance(ctx, p)
	if err != nil {
		return 0, 0, err
	}
	sv := &solver{in: in, offs: greedy(p, in)}
	for k, i := range in.idx {
		sv.hi = max(sv.hi, sv.offs[i]+in.size[k])
	}
	for _, pt := range in.parts {
		sv.lo = max(sv.lo, pt.lb, pt.alb)
	}
	sv.lo = min(roundUp(sv.lo, in.quantum), sv.hi)
	sv.windowBound(ctx, &budget{ctx: ctx, nodes: nodes})
	return sv.lo, in.quantum, nil
}

// SizeOf returns the conflicting pairs and buffer-sections tooLarge
// counts, and those newInstance lists.
func SizeOf(p *workloads.Problem) (pairs, secBufs, listedPairs, listedSecBufs int64) {
	pairs, secBufs = sizeOf(p)
	in, err := newInstance(context.Background(), p)
	if err != nil {
		panic(err)
	}
	for _, o := range in.overlaps {
		listedPairs += int64(len(o))
	}
	for _, b := range in.secBufs {
		listedSecBufs += int64(len(b))
	}
	return pairs, secBufs, listedPairs / 2, listedSecBufs
}

// MaxPairs is the most conflicting pairs exact searches.
const MaxPairs = maxPairs

// Heuristic returns the offsets exact starts from before deadline, nil
// where best-of would run past it.
func Heuristic(p *workloads.Problem, deadline time.Time) ([]int64, error) {
	return heuristic(context.Background(), p, deadline)
}

// SearchRuns runs each static order's search alone on every part of p
// at capacity c (0: eighths/8 of the way from the bound to a greedy plan), up to
// limit nodes each, and describes each run: its outcome, its node count
// and a hash of the offsets it found.
func SearchRuns(p *workloads.Problem, c, eighths, limit int64) ([]string, error) {
	ctx := context.Background()
	in, err := newInstance(ctx, p)
	if err != nil {
		return nil, err
	}
	if c == 0 {
		offs := greedy(p, in)
		var lo, hi int64
		for k, i := range in.idx {
			hi = max(hi, offs[i]+in.size[k])
		}
		for _, pt := range in.parts {
			lo = max(lo, pt.lb, pt.alb)
		}
		c = lo + (hi-lo)*eighths/8
	}
	var out []string
	for pi := range in.parts {
		for _, h := range orders {
			s := newSearcher(in, h)
			s.b = &budget{ctx: ctx, nodes: -1}
			res := s.solve(&in.parts[pi], c, limit)
			hs := fnv.New64a()
			if res == found {
				for _, k := range in.parts[pi].bufs {
					fmt.Fprintf(hs, "%d,", s.sol[k])
				}
			}
			out = append(out, fmt.Sprintf("c=%d part=%d %s res=%d nodes=%d sol=%x", c, pi, h, res, s.count, hs.Sum64()))
		}
	}
	return out, nil
}

// BandPlan packs every part of p at capacity c with the banded engine
// alone, forward and repairing (a part that is one band by the pairings
// that split it), each within nodes: the offsets (in p's order) and true
// when every part split into bands and was packed, false otherwise.
func BandPlan(p *workloads.Problem, c, nodes int64) ([]int64, bool, error) {
	offs, ok, err := packParts(p, c, func(in *instance, pt *part) (engine, int64) {
		bud := &budget{ctx: context.Background(), nodes: -1}
		b, l := newBanded(in, pt, c, false, true, bud)
		switch {
		case b != nil:
			return b, nodes
		case l != nil:
			return newSplitter(l, false, bud), nodes
		}
		return nil, 0
	})
	if err != nil && strings.HasSuffix(err.Error(), "aborted") {
		return nil, false, nil // bands give up so
	}
	return offs, ok, err
}

// PairGroups is pairGroups.
var PairGroups = pairGroups

// EqualSubs is equalSubs.
var EqualSubs = equalSubs

// LargeHeuristics are the planners of a problem too large to search.
var LargeHeuristics = largeHeuristics

// SearchSeeded runs one search of order heur (TWA, WAT or TAW), its
// order perturbed by seed as minimise's restarts perturb it (0: the
// static order), on every part of p within capacity c, with no node
// limit; it reports whether every part fits, and checks the plan.
func SearchSeeded(p *workloads.Problem, heur string, seed uint64, c int64) (bool, error) {
	in, err := newInstance(context.Background(), p)
	if err != nil {
		return false, err
	}
	offs := make([]int64, len(p.Buffers))
	for i, b := range p.Buffers {
		offs[i], _ = p.FixedOf(i)
		if b.Size == 0 && offs[i] < 0 {
			offs[i] = 0
		}
	}
	for pi := range in.parts {
		pt := &in.parts[pi]
		s := newSearcher(in, heur)
		s.seed, s.b = seed, &budget{ctx: context.Background(), nodes: -1}
		switch s.solve(pt, c, 1<<40) {
		case infeasible:
			return false, nil
		case aborted:
			return false, fmt.Errorf("part %d: aborted", pi)
		}
		for _, k := range pt.bufs {
			offs[in.idx[k]] = s.offsets()[k]
		}
	}
	plan := &strategies.Plan{Offsets: offs, Footprint: strategies.Footprint(p.Buffers, offs)}
	if plan.Footprint > c {
		return false, fmt.Errorf("footprint %d above %d", plan.Footprint, c)
	}
	return true, strategies.Validate(p, plan)
}
