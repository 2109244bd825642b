// Package exact is the strategy `exact`: an anytime solver that minimises
// the footprint of an offset plan and proves lower bounds on it.
//
// It starts from the best of a few quick heuristic plans (an upper bound:
// best-of's default members) and a lower bound: LB_load, or, with
// alignment, the most any section needs when its buffers are stacked with
// their sizes rounded up, all but the top one. It then asks, for
// capacities C in between, whether some plan fits in C. Each question is
// a depth-first search over canonical solutions in the manner of
// MiniMalloc (Moffitt, ASPLOS'23): buffers go in non-decreasing order of
// offset (ties in the order's rank), each at the lowest offset above the
// placed buffers it overlaps, so that a solution is an order of
// placement. A placement is pruned when some section of time can no
// longer hold its unplaced buffers above its floor or above the current
// offset (inference; a segment tree keeps every section's room), when a
// section with no room to spare above the current offset has no buffer
// left that may still go exactly there, when a buffer would go above the
// lowest top another unplaced buffer could reach (dominance), or when it
// would repeat an order already tried with identical buffers swapped
// (symmetry). Parts of the timeline that no buffer crosses are searched
// apart. Three static orders (MiniMalloc's TWA, WAT and TAW) search each
// question side by side, taking turns; each search is a coroutine that
// pauses when it has spent its share of nodes and resumes where it
// stopped, so no question searches a node twice; once an order has
// found plans where the others had as many nodes, it takes a larger
// share of each question (the others keep at least a third of an even
// share). Minimising gives half the nodes (a quarter once the probes
// have stalled) to the question at the lower bound and the rest to
// capacity probes below the best plan, on a ladder of depths (every
// capacity a few quanta down, then depths growing geometrically), the
// probe at depth d weighing 1/d in a weighted fair queue of small steps,
// so that a probe on a hard capacity does not hold the others up and a
// probe near the best plan searches as capacity mode would at a known
// fraction of its speed; three quarters of a probe's nodes go to
// restarts with perturbed orders, of Luby's lengths, the seeds that
// found plans tried first (minimise.go).
// A plan found at C lowers the upper bound; a complete search
// that finds none proves the bound C+1, rounded up to the quantum that
// divides every canonical footprint (quantumOf). Before minimising, the
// windows around the peaks of load are solved as problems of their own:
// their optima are lower bounds too (bounds.go). The solver stops when the
// bounds meet (the plan is proved optimal) or its budget of wall time or
// search nodes ends.
//
// A part with no slack at the capacity asked (a perfect packing) is also
// searched by time sweeps that fill each section exactly (fill.go), with
// chains of buffers merged (chain.go), and by splitting it into bands
// or rectangles packed apart (band.go).
//
// It honours per-buffer alignment, gaps and fixed offsets (forms.go says
// how), starting then from a first-fit plan of its own rather than
// best-of's, whose members need not honour them.
package exact

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"membench/strategies"
	"membench/workloads"
)

func init() {
	strategies.Register(strategies.Info{
		Name:    "exact",
		Runtime: "membench",
		Kind:    strategies.Offsets,
		// Memory spaces are left to the registry, one at a time: no
		// buffer of one meets one of another, so planning them together
		// gains nothing.
		Forms: workloads.FormAlign | workloads.FormGaps | workloads.FormFixed,
		Doc: "Anytime exact offset planner: a MiniMalloc-style search over canonical solutions " +
			"tightens the best heuristic plan and proves lower bounds; proved optimal when they meet",
		Params: []workloads.ParamDoc{
			{Name: "timeout", Default: "10s", Doc: "wall-time budget (none when only nodes is given)"},
			{Name: "nodes", Default: "0", Doc: "search-node budget, 0 for none; with it the result is deterministic"},
			{Name: "capacity", Default: "0", Doc: "feasibility mode: find any plan within this many bytes, or prove none exists"},
		},
		New: newExact,
	})
}

func newExact(args *workloads.Args) (strategies.Strategy, error) {
	nodes := args.Int64("nodes", 0)
	capacity := args.Bytes("capacity", 0)
	def := "10s"
	if nodes > 0 {
		def = "0s"
	}
	tstr := args.String("timeout", def)
	timeout, err := time.ParseDuration(tstr)
	switch {
	case err != nil || timeout < 0:
		return nil, workloads.Usagef("exact: parameter timeout=%q: want a duration such as 10s or 500ms", tstr)
	case nodes < 0:
		return nil, workloads.Usagef("exact: parameter nodes=%d: want a non-negative integer", nodes)
	}
	return exact{timeout: timeout, nodes: nodes, capacity: capacity}, nil
}

type exact struct {
	timeout  time.Duration // 0: none
	nodes    int64         // 0: none
	capacity int64         // 0: minimise
	// trace, where set (by tests), hears of every step minimise takes.
	trace func(ev traceEvent)
}

func (exact) Name() string { return "exact" }

// ErrInfeasible is wrapped by the error of a feasibility run whose
// capacity was proved too small.
var ErrInfeasible = errors.New("no plan fits")

func (e exact) Plan(ctx context.Context, p *workloads.Problem) (*strategies.Plan, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, b := range p.Buffers {
		switch {
		case b.Size < 0:
			return nil, fmt.Errorf("exact: buffer %d (id %d) has negative size %d", i, b.ID, b.Size)
		case b.First > b.Last:
			return nil, fmt.Errorf("exact: buffer %d (id %d) has first task %d after last task %d", i, b.ID, b.First, b.Last)
		}
	}
	if err := checkFixed(p); err != nil {
		return nil, err
	}
	bud := &budget{ctx: ctx, nodes: -1}
	if e.timeout > 0 {
		// The clock is read every 16 nodes at first, every 256 once
		// nodes prove fast.
		bud.deadline, bud.skip = time.Now().Add(e.timeout), 4
	}
	if e.nodes > 0 {
		bud.nodes = e.nodes
	}
	if p.Forms()&(workloads.FormAlign|workloads.FormGaps|workloads.FormFixed) == 0 && tooLarge(p) {
		return e.planLarge(ctx, p, bud.deadline)
	}
	in, err := newInstance(ctx, p)
	if err != nil {
		return nil, err
	}
	var offs []int64
	if in.uniform {
		offs, err = heuristic(ctx, p, bud.deadline)
		if err != nil {
			return nil, err
		}
	}
	if offs == nil {
		offs = greedy(p, in)
	}
	if err := e.bounds(p, in); err != nil {
		return nil, err
	}
	sv := &solver{in: in, b: bud, offs: offs, trace: e.trace}
	for i, b := range p.Buffers {
		if b.Size == 0 {
			sv.offs[i], _ = p.FixedOf(i)
		}
	}
	sv.lo = in.fixedTop
	for _, pt := range in.parts {
		sv.lo = max(sv.lo, pt.lb, pt.alb)
	}
	if in.proofs {
		// An optimal footprint is a multiple of the quantum.
		sv.lo = min(roundUp(sv.lo, in.quantum), strategies.Footprint(p.Buffers, sv.offs))
	}
	sv.slo, sv.hi = sv.lo, strategies.Footprint(p.Buffers, sv.offs)
	if e.capacity > 0 {
		err = sv.feasible(e.capacity)
	} else {
		if wb := e.windowBudget(ctx, len(in.size)); sv.lo < sv.hi && wb.nodes > 0 {
			given := wb.nodes
			sv.windowBound(ctx, wb)
			if wb.err != nil {
				return nil, wb.err
			}
			if bud.nodes > 0 {
				// The windows' nodes come out of the whole budget.
				bud.nodes = max(bud.nodes-(given-wb.nodes), 1)
			}
			sv.slo = max(sv.slo, sv.lo)
		}
		sv.minimise()
	}
	if bud.err != nil {
		return nil, bud.err
	}
	if err != nil {
		return nil, err
	}
	plan := &strategies.Plan{Offsets: sv.offs, Footprint: sv.hi, Bound: sv.lo, Optimal: sv.lo >= sv.hi, Nodes: sv.nodes}
	if plan.Optimal {
		plan.Bound = plan.Footprint
	}
	// A proved bound is only as good as the plan beside it.
	if err := strategies.Validate(p, plan); err != nil {
		return nil, fmt.Errorf("exact: internal error, the plan found is invalid: %w", err)
	}
	return plan, nil
}

// bounds refuses a capacity below what the static bounds prove: LB_load,
// the aligned stacks of the sections, and with forms the fixed buffers
// and the windows of the gaps.
func (e exact) bounds(p *workloads.Problem, in *instance) error {
	if e.capacity <= 0 {
		return nil
	}
	if in.uniform {
		if lb := p.LoadBound(); lb > e.capacity {
			return fmt.Errorf("exact: %w in capacity %d (proved: LB_load is %d)", ErrInfeasible, e.capacity, lb)
		}
	}
	for i, b := range p.Buffers {
		if o, ok := p.FixedOf(i); ok && o+b.Size > e.capacity {
			return fmt.Errorf("exact: %w in capacity %d (proved: buffer %d (id %d) is fixed at %d and ends at %d)",
				ErrInfeasible, e.capacity, i, b.ID, o, o+b.Size)
		}
	}
	var lb, alb int64
	for _, pt := range in.parts {
		lb, alb = max(lb, pt.lb), max(alb, pt.alb)
	}
	switch {
	case lb > e.capacity:
		return fmt.Errorf("exact: %w in capacity %d (proved: with its gap windows and fixed offsets, some task needs %d)",
			ErrInfeasible, e.capacity, lb)
	case alb > e.capacity:
		return fmt.Errorf("exact: %w in capacity %d (proved: with offsets aligned to %d, some task needs %d)",
			ErrInfeasible, e.capacity, in.align, alb)
	}
	return nil
}

// heuristic returns the offsets of the best plan of the quick offset
// heuristics: best-of with its default members (XLA's, TFLite's and
// others'). Where they would run past the deadline it returns nil, and
// exact starts from its own first fit.
func heuristic(ctx context.Context, p *workloads.Problem, deadline time.Time) ([]int64, error) {
	s, err := strategies.Lookup("best-of")
	if err != nil {
		return nil, fmt.Errorf("exact: %w", err)
	}
	hctx := ctx
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		hctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	plan, err := s.Plan(hctx, p)
	if err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return nil, nil
		}
		return nil, err
	}
	return slices.Clone(plan.Offsets), nil
}

// solver holds the bounds and the best plan while capacities are tried.
type solver struct {
	in *instance
	b  *budget
	// offs is the best plan found, in the problem's order; hi its
	// footprint; lo the best lower bound proved.
	offs   []int64
	lo, hi int64
	// slo is the lowest capacity the search has not ruled out: lo where
	// its searches prove what they rule out (instance.proofs), else
	// above it.
	slo int64
	// noProbes: minimise asks only the question at slo (a window's
	// search, where only proofs count).
	noProbes bool
	// trace, where set (by tests), hears of every step minimise takes.
	trace func(ev traceEvent)
	// nodes counts the search nodes visited (Plan.Nodes).
	nodes int64
	// wins counts, per static order, the plans its search found after
	// its first step in a trial, when the others had had as many nodes:
	// on MiniMalloc's D and J one order (TWA) finds nearly every plan
	// below the first ones, the others none in 30,000 nodes.
	wins [3]int64
	// seeds counts the perturbed orders used; winners are those that
	// found plans, the latest first.
	seeds   uint64
	winners []uint64
}

// maxWins caps what an order's wins count for: an order with none keeps
// at least a third of its even share of a trial against one that
// doubled its weight maxWins times (8:1:1).
const maxWins = 3

// weight is order x's weight in a trial's nodes: one, doubled for each
// plan it found in a contested step, up to maxWins times. A trial's
// orders weigh the same until some plan is found, so capacity mode,
// which stops at its first plan, shares its nodes evenly. On
// MiniMalloc's D, where TWA finds nearly every plan, the weights
// 1+min(wins, 3) (4:1:1, before issue 24's second round) gave TWA two
// thirds of each probe's nodes, these give it four fifths.
func (sv *solver) weight(x int) int64 { return 1 << min(sv.wins[x], maxWins) }

// orders are the static orders of the searches, MiniMalloc's default
// heuristics.
var orders = []string{"TWA", "WAT", "TAW"}

// baseLimit is the node limit of the first round of attempts; each round
// doubles it.
func (sv *solver) baseLimit() int64 { return int64(2 * len(sv.in.size)) }

// ruledOut records that a complete search found no plan within c: a
// proof that none exists where the search is complete.
func (sv *solver) ruledOut(c int64) {
	next := min(roundUp(c+1, sv.in.quantum), sv.hi)
	sv.slo = max(sv.slo, next)
	if sv.in.proofs {
		sv.lo = max(sv.lo, next)
	}
}

// feasible looks for a plan within capacity c until it finds one, proves
// there is none, or the budget ends.
func (sv *solver) feasible(c int64) error {
	if sv.hi <= c {
		return nil
	}
	tr := sv.newTrial(c)
	defer tr.close()
	for limit := sv.baseLimit(); ; limit *= 2 {
		switch sv.step(tr, limit) {
		case found:
			return nil
		case infeasible:
			sv.ruledOut(c)
			if !sv.in.proofs {
				return fmt.Errorf("exact: found no plan in capacity %d (with these gap windows the search proves nothing)", c)
			}
			return fmt.Errorf("exact: %w in capacity %d (proved)", ErrInfeasible, c)
		}
		if sv.b.spent() || sv.b.nodes == 0 {
			return fmt.Errorf("exact: found no plan in capacity %d within the budget (none proved impossible either)", c)
		}
	}
}
