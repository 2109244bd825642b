package strategies

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"membench/strategies/internal/kernel"
	"membench/strategies/internal/search"
	"membench/workloads"
)

// milp is membench's mixed-integer program for offset planning, the
// standard one of the literature (e.g. Sekiyama et al., "Profile-guided
// memory optimization for deep neural networks", 2018; the MILP MiniMalloc
// and TelaMalloc compare against): an offset x_i per buffer, a footprint
// F_m per memory space, and for every two buffers with bytes that are live
// at a common task in the same space a binary z_ij choosing which of them
// lies below the other, enforced by big-M constraints
//
//	x_i + d_ij <= x_j + M_ij(1 - z_ij),  x_j + d_ji <= x_i + M_ji z_ij,  x_i + s_i <= F_m,
//
// minimising the sum of the F_m. The gap d_ij is s_i rounded up to the
// greatest common divisor of what x_i and x_j are multiples of (their
// alignments, or a fixed offset), as x_j - x_i is a multiple of it. The
// upper bound ub of F_m is the footprint of the best of OmniMalloc's
// greedy first-fit orders (greedy.go's order=all); x_i <= ub - s_i, and
// M_ij = ub - s_i + d_ij is the least M that leaves the row slack when
// z_ij says otherwise. The lower bound lb of F_m is the stack bound: at
// each task the live buffers lie one above another, so each but the top
// one takes its size rounded up to the gcd of their alignments (LB_load
// where that is 1). For every maximal set of buffers live at one task
// (a clique) there are rows saying that x_j is at least the rounded
// sizes ordered below j and F_m - x_j at least those above (up to
// milpCliqueTerms terms in all). An aligned
// buffer's offset is its alignment times an integer variable, a fixed
// offset is a fixed bound, a memory space with a capacity bounds its
// F_m. All quantities are first divided by the greatest common divisor
// of the sizes, alignments and fixed offsets (the unit). Past
// milpMaxPairs live pairs no program is built (the plan is the greedy
// one, the bound the stack bound), and a CBC run that overruns its time
// limit is killed and has no answer.
//
// The program is written in CPLEX LP format and solved by COIN-OR CBC
// (Debian's coinor-cbc) run as a child process, which a cancelled context
// kills, under CBC's own wall-time (timeout) and node (nodes) limits, with
// an absolute gap under one unit (the objective is integral) and CBC's
// cutting planes off: on big-M rows with coefficients near 2^40 they cut
// off feasible plans (CBC then "proves" a feasible program infeasible),
// and they do not strengthen this program's bound. CBC runs twice, each
// run on half of each limit. The first is the probe: F_m fixed at lb, so
// every M is as small as it can be; a plan it finds is optimal, and its
// proof that there is none raises the bound by a unit. The second is the
// whole program, F_m between lb and the best plan so far. Where ub
// exceeds milpScaleLimit units CBC's answers lose whole units (see
// there): the first run is then the plain program (no clique rows), the
// second counts sizes in coarser steps, and neither run's bound or proof
// is taken. The plan takes from CBC's incumbent only which buffer of each
// pair lies below and places every buffer at the lowest offset that order
// allows (a longest path in whole bytes), so CBC's floating-point
// tolerances never reach the offsets; without an incumbent the greedy
// plan is the plan, and where it meets lb in every space CBC is not run.
// Plan.Bound is the largest of the stack bound, the probe's and CBC's
// (where believed); Plan.Optimal that the plan meets it.
func init() {
	Register(Info{
		Name:    "milp",
		Runtime: "membench",
		Kind:    Offsets,
		Doc: "Mixed-integer program (offsets, order binaries for live pairs, big-M, footprint objective) " +
			"solved by COIN-OR CBC; anytime under timeout, reports CBC's bound and proved optimality",
		Params: []workloads.ParamDoc{
			{Name: "timeout", Default: "10s", Doc: "CBC's wall-time budget, 0 for none"},
			{Name: "nodes", Default: "0", Doc: "CBC's branch-and-bound node budget, 0 for none"},
			{Name: "heuristics", Default: "true", Doc: "run CBC's primal heuristics (false: only branch and bound finds plans)"},
		},
		Forms: workloads.FormAlign | workloads.FormFixed | workloads.FormMemories,
		New: func(args *workloads.Args) (Strategy, error) {
			ps := search.NewParams("milp", args)
			m := milp{timeout: ps.Timeout("10s"), nodes: ps.Int("nodes", 0, 0), heuristics: args.Bool("heuristics", true)}
			return m, ps.Err()
		},
	})
}

// ErrSolverMissing is the error of a strategy whose external solver is not
// installed (milp without cbc on PATH); test with errors.Is.
var ErrSolverMissing = errors.New("solver not installed")

type milp struct {
	timeout    time.Duration
	nodes      int
	heuristics bool
}

func (milp) Name() string { return "milp" }

// milpModel is the program in units of unit bytes, with the greedy plan
// it starts from.
type milpModel struct {
	unit   int64
	space  []int
	size   []int64 // units
	align  []int64 // units, 1 for none
	pin    []int64 // units, workloads.NoOffset for none
	step   []int64 // units: every offset buffer i may take is a multiple of step[i] (0: pinned at 0)
	pairs  [][2]int32
	ub, lb []int64 // per space, units
	cap    []int64 // per space, units, 0 for none
	first  []int64 // the greedy plan's offsets, bytes
	// cliques are the maximal sets of buffers (sizes > 0) live at one
	// task, per memory space.
	cliques [][]int32
	// floor is a lower bound on the sum of the footprints (units) beyond
	// the spaces' own: the probe's proof that not all of them meet lb.
	floor int64
	// count is the number of buffers per space.
	count []int
	// scale divides the sizes and offsets CBC sees (1: none); see
	// milpScaleLimit.
	scale int64
}

// milpScaleLimit is the largest footprint (units) whose program CBC is
// given as it is and whose bound and proofs are believed. Beyond it, CBC's
// floating-point tolerances (1e-7 on the binaries, times a big M near the
// footprint) lose whole units: with sizes near 2^40 it "proved" feasible
// programs infeasible, reported optima above exact's and aborted on
// assertions (measured). There the program counts sizes and offsets in
// steps of scale bytes, a multiple of every alignment, rounding sizes and
// gaps up, so that any plan it finds is a plan of the problem; CBC then
// only finds orders, and the bound is the stack bound.
const milpScaleLimit = 1 << 24

// milpCliqueTerms caps the terms of the clique rows: each clique of k
// buffers adds 2k rows of k terms, and on a random problem of 256 buffers
// all of them made the program six times larger and CBC's root (which
// does not look at the time limit) take 30 to 50 s in place of 9
// (measured under load). Problems of at most 30 buffers stay below it.
const milpCliqueTerms = 1 << 16

// milpMaxPairs is the most live pairs (order binaries) milp hands CBC.
// Past it the program is not built: the plan is the greedy one milp starts
// from and the bound the stack bound, what milp reports when CBC improves
// on neither within its time limit.
const milpMaxPairs = 1 << 20

func (m milp) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	bin, err := exec.LookPath("cbc")
	if err != nil {
		return nil, fmt.Errorf("milp: %w: COIN-OR CBC (cbc) is not on PATH; install it with apt-get install coinor-cbc", ErrSolverMissing)
	}
	// Each live pair is a binary and two rows: past milpMaxPairs the
	// program is more than CBC can be handed (idealloc's Y_1 has 180
	// million pairs, gigabytes of rows CBC would not get through in
	// hours), so it is not built, and the plan is the one CBC would have
	// started from.
	program := kernel.ConflictPairs(p.Buffers) <= milpMaxPairs
	mod, err := newMILPModel(ctx, p, program)
	if err != nil {
		return nil, err
	}
	if mod.firstOptimal() || !program {
		return mod.plan(p, cbcResult{}, nil)
	}
	dir, err := os.MkdirTemp("", "membench-milp-")
	if err != nil {
		return nil, fmt.Errorf("milp: %w", err)
	}
	defer os.RemoveAll(dir)
	var deadline time.Time
	if m.timeout > 0 {
		deadline = time.Now().Add(m.timeout)
	}
	nodes := m.nodes
	// The first run has half the budget. Where CBC's numbers are believed
	// it is the probe: a plan at the lower bound in every space, asked with
	// F fixed there, so that each big M is as small as it can be; the plan
	// it finds is optimal, and a proof that there is none raises the bound
	// by one unit. Elsewhere it is the plain program in units, of which
	// only a plan is taken, and a failure of CBC's (an abort on an
	// assertion) is no answer.
	first := formPlain
	if mod.trusted() {
		first = formProbe
	}
	if first == formPlain || mod.capacityAllows() {
		half := m
		half.timeout, half.nodes = m.timeout/2, (m.nodes+1)/2
		res, z, err := half.cbc(ctx, bin, dir, mod, first)
		if err != nil && (first == formProbe || ctx.Err() != nil) {
			return nil, err
		}
		nodes -= half.nodes
		switch {
		case err != nil:
		case res.infeasible && first == formProbe:
			mod.raise()
		case z != nil:
			if o, ok := mod.place(p, z); ok {
				mod.improve(p, o)
			}
		}
		if mod.firstOptimal() || m.nodes > 0 && nodes <= 0 || !deadline.IsZero() && time.Until(deadline) <= 0 {
			return mod.plan(p, cbcResult{}, nil)
		}
	}
	main := m
	main.nodes = nodes
	if !deadline.IsZero() {
		main.timeout = time.Until(deadline)
	}
	res, z, err := main.cbc(ctx, bin, dir, mod, formWhole)
	if err != nil {
		if mod.trusted() || ctx.Err() != nil {
			return nil, err
		}
		res, z = cbcResult{}, nil
	}
	return mod.plan(p, res, z)
}

// cbc writes the program (the probe at the lower bound, or the whole
// one) and runs cbc on it under m's limits, returning what its log says
// and, where it has a plan, the plan's order binaries.
func (m milp) cbc(ctx context.Context, bin, dir string, mod *milpModel, form milpForm) (cbcResult, map[string]float64, error) {
	lp := filepath.Join(dir, "model.lp")
	if err := mod.write(ctx, lp, form); err != nil {
		return cbcResult{}, nil, err
	}
	sol := filepath.Join(dir, "solution.txt")
	os.Remove(sol)
	args := []string{lp, "timeMode", "elapsed", "threads", "1", "allowableGap", "0.99", "cuts", "off"}
	if m.timeout > 0 {
		args = append(args, "seconds", strconv.FormatFloat(m.timeout.Seconds(), 'f', 3, 64))
	}
	if m.nodes > 0 {
		args = append(args, "maxNodes", strconv.Itoa(m.nodes))
	}
	if !m.heuristics {
		args = append(args, "heuristicsOnOff", "off")
	}
	args = append(args, "solve", "solution", sol)
	// CBC reads and preprocesses a large program without looking at its
	// clock (idealloc's ResNet-50, 218k pairs: 70 s under a 2 s limit), so
	// it is killed a little after its limit and that run has no answer.
	run := ctx
	if m.timeout > 0 {
		var cancel context.CancelFunc
		run, cancel = context.WithTimeout(ctx, m.timeout+max(time.Second, m.timeout/10))
		defer cancel()
	}
	cmd := exec.CommandContext(run, bin, args...)
	cmd.Dir = dir
	cmd.WaitDelay = time.Second
	out, runErr := cmd.CombinedOutput()
	if err := ctx.Err(); err != nil {
		return cbcResult{}, nil, err
	}
	if run.Err() != nil {
		return cbcResult{}, nil, nil
	}
	if runErr != nil {
		return cbcResult{}, nil, fmt.Errorf("milp: cbc: %v: %s", runErr, lastLines(out, 5))
	}
	res := parseCBCLog(out)
	var z map[string]float64
	if res.incumbent {
		var err error
		if z, err = readCBCSolution(sol); err != nil {
			return cbcResult{}, nil, err
		}
	}
	return res, z, nil
}

// newMILPModel plans each memory space greedily (the big M and the
// plan to fall back on) and, where program is set, lists the pairs of
// buffers that need an order and the cliques; without it, the model has
// only the greedy plan and the bounds, whose stack bound is then taken
// with one divisor for the whole space (stackBoundSweep).
func newMILPModel(ctx context.Context, p *workloads.Problem, program bool) (*milpModel, error) {
	n := len(p.Buffers)
	subs, idx := SpaceProblems(p)
	mod := &milpModel{space: make([]int, n), size: make([]int64, n), align: make([]int64, n), pin: make([]int64, n), step: make([]int64, n), first: make([]int64, n)}
	ubBytes := make([]int64, len(subs))
	for m, sp := range subs {
		pl, err := search.NewPlacer(ctx, "milp", sp)
		if err != nil {
			return nil, err
		}
		// The best of OmniMalloc's greedy orders (greedy?order=all).
		offs, try := make([]int64, len(sp.Buffers)), make([]int64, len(sp.Buffers))
		ubBytes[m] = math.MaxInt64
		for _, name := range search.Orders {
			order, err := search.Order(name, sp, pl)
			if err != nil {
				return nil, err
			}
			peak, err := pl.Place(ctx, order, try)
			if err != nil {
				return nil, err
			}
			if peak < ubBytes[m] {
				ubBytes[m] = peak
				offs, try = try, offs
			}
		}
		for j, i := range idx[m] {
			mod.space[i] = m
			mod.first[i] = offs[j]
			if sp.Buffers[j].Size == 0 || !program {
				continue // overlaps nothing, or no program
			}
			for _, c := range pl.Conflicts(j) {
				if int(c) > j && sp.Buffers[c].Size > 0 {
					mod.pairs = append(mod.pairs, [2]int32{int32(i), int32(idx[m][c])})
				}
			}
		}
	}
	var g int64
	for i, b := range p.Buffers {
		g = gcd(g, b.Size)
		if a := p.AlignOf(i); a > 1 {
			g = gcd(g, a)
		}
		if o, ok := p.FixedOf(i); ok {
			g = gcd(g, o)
		}
	}
	mod.unit = max(g, 1)
	u := mod.unit
	for i, b := range p.Buffers {
		mod.size[i] = b.Size / u
		mod.align[i] = max(p.AlignOf(i)/u, 1)
		mod.pin[i] = workloads.NoOffset
		mod.step[i] = mod.align[i]
		if o, ok := p.FixedOf(i); ok {
			mod.pin[i] = o / u
			mod.step[i] = o / u
		}
	}
	for m, sp := range subs {
		mod.ub = append(mod.ub, ubBytes[m]/u)
		if !program {
			mod.lb = append(mod.lb, max((sp.LoadBound()+u-1)/u, mod.stackBoundSweep(sp, idx[m])))
		} else {
			mod.lb = append(mod.lb, max((sp.LoadBound()+u-1)/u, mod.stackBound(sp, idx[m])))
			mod.cliques = append(mod.cliques, maximalCliques(sp, idx[m])...)
		}
		mod.count = append(mod.count, len(idx[m]))
		var c int64
		if m < len(p.Memories) && p.Memories[m].Capacity > 0 {
			c = max(p.Memories[m].Capacity/u, 0)
		}
		mod.cap = append(mod.cap, c)
	}
	mod.scale = mod.scaleFor()
	return mod, nil
}

// scaleFor returns the step (units) in which the program counts sizes
// and offsets: 1 where every ub is within milpScaleLimit or a buffer is
// fixed (a fixed offset need not be a whole number of steps), else the
// least multiple of the alignments' least common multiple that brings ub
// within the limit.
func (mod *milpModel) scaleFor() int64 {
	top := slices.Max(mod.ub)
	if top <= milpScaleLimit {
		return 1
	}
	l := int64(1)
	for i, a := range mod.align {
		if mod.pin[i] >= 0 {
			return 1
		}
		l = l / gcd(l, a) * a
	}
	want := (top + milpScaleLimit - 1) / milpScaleLimit
	return (want + l - 1) / l * l
}

// trusted reports whether CBC's bound and proofs are believed: the
// program is given as it is and its numbers are within milpScaleLimit.
func (mod *milpModel) trusted() bool {
	return mod.scale == 1 && slices.Max(mod.ub) <= milpScaleLimit
}

// capacityAllows reports whether every space's lower bound is within its
// capacity, so that the probe at the lower bounds asks a question.
func (mod *milpModel) capacityAllows() bool {
	for m, c := range mod.cap {
		if c > 0 && mod.lb[m] > c {
			return false
		}
	}
	return true
}

// raise records the probe's proof that no plan meets the lower bound in
// every space: with one space its bound rises by a unit, with several
// their sum does.
func (mod *milpModel) raise() {
	if len(mod.lb) == 1 {
		mod.lb[0]++
		return
	}
	var sum int64
	for _, lb := range mod.lb {
		sum += lb
	}
	mod.floor = sum + 1
}

// improve takes offsets (bytes) in place of the plan to start from in
// each space where they end lower, and lowers that space's ub.
func (mod *milpModel) improve(p *workloads.Problem, offsets []int64) {
	tops := make([]int64, len(mod.ub))
	for i, o := range offsets {
		tops[mod.space[i]] = max(tops[mod.space[i]], o+p.Buffers[i].Size)
	}
	for m, top := range tops {
		if top/mod.unit >= mod.ub[m] {
			continue
		}
		mod.ub[m] = top / mod.unit
		for i, o := range offsets {
			if mod.space[i] == m {
				mod.first[i] = o
			}
		}
	}
}

// firstOptimal reports whether the greedy plan meets LB_load in every
// memory space, and so is optimal without a program to solve.
func (mod *milpModel) firstOptimal() bool {
	for m, ub := range mod.ub {
		if ub > mod.lb[m] {
			return false
		}
	}
	return true
}

// gap is the least x_j - x_i (units) of a plan that puts buffer i below
// buffer j: s_i rounded up to the greatest common divisor of what the two
// offsets are multiples of, as x_j - x_i is a multiple of it.
func (mod *milpModel) gap(i, j int32) int64 {
	return AlignUp(mod.size[i], gcd(mod.step[i], mod.step[j]))
}

// stackBound is a lower bound (units) on the footprint of memory space sp,
// whose buffers are idx in the whole problem: at each task the buffers
// live there lie one above the other, each offset a multiple of G (the
// gcd of what their offsets are multiples of), so every buffer but the
// top one takes its size rounded up to G. It is LB_load where G is 1.
func (mod *milpModel) stackBound(sp *workloads.Problem, idx []int) int64 {
	var best int64
	for _, at := range sp.Buffers {
		var g int64
		for k, b := range sp.Buffers {
			if b.Size > 0 && b.First <= at.First && at.First <= b.Last {
				g = gcd(g, mod.step[idx[k]])
			}
		}
		var sum, slack int64
		for k, b := range sp.Buffers {
			if b.Size > 0 && b.First <= at.First && at.First <= b.Last {
				s := mod.size[idx[k]]
				r := AlignUp(s, g)
				sum += r
				slack = max(slack, r-s)
			}
		}
		best = max(best, sum-slack)
	}
	return best
}

// stackBoundSweep is stackBound in O(n log n) for problems too large for
// its pairwise scan, with one G for the whole space (the gcd of every
// step there): every offset is a multiple of it too, so the stack argument
// holds with it, and the bound is at most stackBound's.
func (mod *milpModel) stackBoundSweep(sp *workloads.Problem, idx []int) int64 {
	var g int64
	for k, b := range sp.Buffers {
		if b.Size > 0 {
			g = gcd(g, mod.step[idx[k]])
		}
	}
	if g <= 1 {
		return 0 // LB_load
	}
	// Sweep the events in time order: a start at t has key 2t+1, an end
	// key 2t (the buffer is gone from t on), so ends come first. The top
	// buffer's rounding (the largest r - s live, below G) is kept by
	// counts.
	type event struct{ key, k int }
	var evs []event
	for k, b := range sp.Buffers {
		if b.Size > 0 {
			evs = append(evs, event{2*b.First + 1, k}, event{2 * (b.Last + 1), k})
		}
	}
	slices.SortFunc(evs, func(a, b event) int { return cmp.Compare(a.key, b.key) })
	slacks := map[int64]int{}
	var sum, best int64
	for i, e := range evs {
		s := mod.size[idx[e.k]]
		r := AlignUp(s, g)
		start := e.key%2 == 1
		if start {
			sum += r
			slacks[r-s]++
		} else {
			sum -= r
			if slacks[r-s]--; slacks[r-s] == 0 {
				delete(slacks, r-s)
			}
		}
		if start && (i == len(evs)-1 || evs[i+1].key != e.key) {
			var slack int64
			for v := range slacks {
				slack = max(slack, v)
			}
			best = max(best, sum-slack)
		}
	}
	return best
}

// maximalCliques returns the maximal sets of at least two buffers (sizes
// > 0, indices in the whole problem) of memory space sp live at one task.
// Each is the set live at some first task t, and the set live at t is
// maximal unless all of it is still live at the next first task.
func maximalCliques(sp *workloads.Problem, idx []int) [][]int32 {
	var firsts []int
	for _, b := range sp.Buffers {
		if b.Size > 0 {
			firsts = append(firsts, b.First)
		}
	}
	slices.Sort(firsts)
	firsts = slices.Compact(firsts)
	var out [][]int32
	for k, t := range firsts {
		var c []int32
		end := math.MaxInt
		for j, b := range sp.Buffers {
			if b.Size > 0 && b.First <= t && t <= b.Last {
				c = append(c, int32(idx[j]))
				end = min(end, b.Last)
			}
		}
		if len(c) > 1 && (k == len(firsts)-1 || end < firsts[k+1]) {
			out = append(out, c)
		}
	}
	return out
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// milpForm is which program write writes.
type milpForm int

const (
	// formWhole is the program: F_m between lb and ub, clique rows, sizes
	// in steps of scale.
	formWhole milpForm = iota
	// formProbe fixes each F_m at its lower bound (with scale 1).
	formProbe
	// formPlain is the whole program in units without clique rows: where
	// CBC's numbers are not believed it is tried first, as on some of
	// those problems it finds the optimum that the scaled one misses.
	formPlain
)

// write writes the program of the given form in CPLEX LP format to path.
func (mod *milpModel) write(ctx context.Context, path string, form milpForm) error {
	probe := form == formProbe
	d := mod.scale
	if form != formWhole {
		d = 1
	}
	sc := func(v int64) int64 { return (v + d - 1) / d }
	top := make([]int64, len(mod.ub))
	for m := range top {
		switch {
		case probe:
			top[m] = mod.lb[m]
		case d > 1:
			// The greedy order's plan with sizes and gaps rounded up
			// to whole steps of d: each buffer of a stack gains under one.
			top[m] = sc(mod.ub[m]) + int64(mod.count[m])
		default:
			top[m] = mod.ub[m]
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("milp: %w", err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "Minimize\n obj:")
	for m := range mod.ub {
		fmt.Fprintf(w, " + F%d\n", m)
	}
	fmt.Fprintln(w, "Subject To")
	row := 0
	for i, s := range mod.size {
		fmt.Fprintf(w, " r%d: x%d - F%d <= %d\n", row, i, mod.space[i], -sc(s))
		row++
		if mod.align[i] > 1 && mod.pin[i] < 0 && d == 1 {
			fmt.Fprintf(w, " r%d: x%d - %d k%d = 0\n", row, i, mod.align[i], i)
			row++
		}
	}
	for k, e := range mod.pairs {
		if k%kernel.CtxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				f.Close()
				return err
			}
		}
		// z_ij = 1: x_i + gap(i,j) <= x_j; z_ij = 0: x_j + gap(j,i) <= x_i.
		// Each big M is the least that leaves the other row slack:
		// x_i - x_j is at most ub - s_i as x_i <= ub - s_i and x_j >= 0.
		i, j := e[0], e[1]
		ub := top[mod.space[i]]
		dij, dji := sc(mod.gap(i, j)), sc(mod.gap(j, i))
		mij, mji := ub-sc(mod.size[i])+dij, ub-sc(mod.size[j])+dji
		fmt.Fprintf(w, " r%d: x%d - x%d + %d z%d_%d <= %d\n", row, i, j, mij, i, j, mij-dij)
		fmt.Fprintf(w, " r%d: x%d - x%d - %d z%d_%d <= %d\n", row+1, j, i, mji, i, j, -dji)
		row += 2
	}
	if form != formPlain {
		row = mod.writeCliques(w, row, sc)
	}
	fmt.Fprintln(w, "Bounds")
	for i, s := range mod.size {
		if mod.pin[i] >= 0 {
			fmt.Fprintf(w, " x%d = %d\n", i, mod.pin[i])
		} else {
			fmt.Fprintf(w, " 0 <= x%d <= %d\n", i, max(top[mod.space[i]]-sc(s), 0))
		}
	}
	for m, ub := range top {
		if probe {
			fmt.Fprintf(w, " F%d = %d\n", m, mod.lb[m])
			continue
		}
		if c := mod.cap[m] / d; mod.cap[m] > 0 && c < ub {
			ub = c
		}
		fmt.Fprintf(w, " %d <= F%d <= %d\n", min(sc(mod.lb[m]), ub), m, ub)
	}
	fmt.Fprintln(w, "General")
	for i := range mod.size {
		if mod.align[i] > 1 && mod.pin[i] < 0 && d == 1 {
			fmt.Fprintf(w, " k%d\n", i)
		}
	}
	fmt.Fprintln(w, "Binary")
	for _, e := range mod.pairs {
		fmt.Fprintf(w, " z%d_%d\n", e[0], e[1])
	}
	fmt.Fprintln(w, "End")
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("milp: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("milp: %w", err)
	}
	return nil
}

// below writes the term "coef [i below j]" of an LP row: coef z_ij where
// the pair is (i, j), else coef (1 - z_ji), whose constant it returns.
func (mod *milpModel) below(w *bufio.Writer, coef int64, i, j int32) int64 {
	if i < j {
		term(w, coef, fmt.Sprintf("z%d_%d", i, j))
		return 0
	}
	term(w, -coef, fmt.Sprintf("z%d_%d", j, i))
	return coef
}

// term writes " + c name" or " - |c| name".
func term(w *bufio.Writer, c int64, name string) {
	if c < 0 {
		fmt.Fprintf(w, " - %d %s", -c, name)
	} else {
		fmt.Fprintf(w, " + %d %s", c, name)
	}
}

// writeCliques writes, for each buffer j of each clique C, that x_j is at
// least the sizes ordered below j and F - x_j at least those above,
// rounded up to C's step (less the most one buffer gains by the rounding).
// It stops before the rows hold more than milpCliqueTerms terms.
func (mod *milpModel) writeCliques(w *bufio.Writer, row int, sc func(int64) int64) int {
	terms := 0
	for _, c := range mod.cliques {
		if terms += 2 * len(c) * len(c); terms > milpCliqueTerms {
			break
		}
		var g, slack int64
		for _, i := range c {
			g = gcd(g, mod.step[i])
		}
		for _, i := range c {
			slack = max(slack, AlignUp(mod.size[i], g)-mod.size[i])
		}
		for _, j := range c {
			fmt.Fprintf(w, " r%d: x%d", row, j)
			var k int64
			for _, i := range c {
				if i != j {
					k += mod.below(w, -sc(AlignUp(mod.size[i], g)), i, j)
				}
			}
			fmt.Fprintf(w, " >= %d\n", -k)
			fmt.Fprintf(w, " r%d: F%d - x%d", row+1, mod.space[j], j)
			k = 0
			for _, i := range c {
				if i != j {
					k += mod.below(w, -sc(AlignUp(mod.size[i], g)), j, i)
				}
			}
			fmt.Fprintf(w, " >= %d\n", sc(AlignUp(mod.size[j], g))-sc(slack)-k)
			row += 2
		}
	}
	return row
}

// cbcResult is what CBC's log says of its run.
type cbcResult struct {
	optimal, infeasible, incumbent bool
	objective, bound               float64
	hasBound                       bool
}

// parseCBCLog reads the summary CBC prints after solving: the "Result - "
// line, "Objective value:" and "Lower bound:".
func parseCBCLog(out []byte) cbcResult {
	var r cbcResult
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "Result - "):
			st := strings.TrimPrefix(line, "Result - ")
			r.optimal = strings.HasPrefix(st, "Optimal")
			r.infeasible = strings.Contains(st, "infeasible")
			r.incumbent = !r.infeasible
		case strings.HasPrefix(line, "No feasible solution found"):
			r.incumbent = false
		case strings.HasPrefix(line, "Objective value:"):
			r.objective, _ = strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(line, "Objective value:")), 64)
		case strings.HasPrefix(line, "Lower bound:"):
			v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(line, "Lower bound:")), 64)
			r.bound, r.hasBound = v, err == nil
		}
	}
	if r.optimal {
		r.bound, r.hasBound = r.objective, true
	}
	return r
}

// readCBCSolution reads the order binaries from CBC's solution file: a
// status line, then one line per nonzero variable, "index name value
// reduced-cost", marked "**" in front where the value breaks a bound.
// Variables it does not list are 0.
func readCBCSolution(path string) (map[string]float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("milp: CBC's solution file: %w", err)
	}
	z := map[string]float64{}
	for k, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if k == 0 || len(fields) == 0 {
			continue // the status line
		}
		if fields[0] == "**" {
			fields = fields[1:]
		}
		if len(fields) < 3 {
			return nil, fmt.Errorf("milp: %s:%d: want \"index name value reduced-cost\", got %q", path, k+1, line)
		}
		v, err := strconv.ParseFloat(fields[2], 64)
		if err != nil {
			return nil, fmt.Errorf("milp: %s:%d: value %q is not a number", path, k+1, fields[2])
		}
		if strings.HasPrefix(fields[1], "z") {
			z[fields[1]] = v
		}
	}
	return z, nil
}

// plan turns CBC's order binaries into offsets (the lowest each buffer
// may take in that order, in bytes), or falls back on the greedy plan where
// CBC has none or they do not order the buffers consistently, and adds
// CBC's bound.
func (mod *milpModel) plan(p *workloads.Problem, res cbcResult, z map[string]float64) (*Plan, error) {
	if !mod.trusted() {
		res.hasBound, res.optimal, res.infeasible = false, false, false
	}
	offsets := mod.first
	if z != nil {
		if o, ok := mod.place(p, z); ok && mod.footprint(p, o) <= mod.footprint(p, offsets) {
			offsets = o
		}
	}
	plan := &Plan{Offsets: offsets, Footprint: mod.footprint(p, offsets)}
	tops := make([]int64, len(mod.ub))
	for i, o := range offsets {
		tops[mod.space[i]] = max(tops[mod.space[i]], o+p.Buffers[i].Size)
	}
	for m, top := range tops {
		if c := mod.cap[m] * mod.unit; c > 0 && top > c {
			if res.infeasible || mod.lb[m] > mod.cap[m] {
				return nil, fmt.Errorf("milp: no plan fits memory space %q in its capacity %d bytes (proved)", p.Memories[m].Name, p.Memories[m].Capacity)
			}
			return nil, fmt.Errorf("milp: found no plan that fits memory space %q in its capacity %d bytes", p.Memories[m].Name, p.Memories[m].Capacity)
		}
	}
	if p.Forms()&workloads.FormMemories != 0 {
		plan.Footprints = tops
	}
	plan.Bound = p.LoadBound()
	var stacks int64
	for _, lb := range mod.lb {
		stacks += lb * mod.unit
	}
	plan.Bound = max(plan.Bound, stacks, mod.floor*mod.unit)
	if res.hasBound {
		tol := 1e-6 * max(1, math.Abs(res.bound))
		plan.Bound = max(plan.Bound, int64(math.Ceil(res.bound-tol))*mod.unit)
	}
	if res.optimal && plan.Footprint == int64(math.Round(res.objective))*mod.unit || plan.Bound >= plan.Footprint {
		plan.Bound, plan.Optimal = plan.Footprint, true
	}
	return plan, nil
}

// footprint is the sum over memory spaces of max(offset+size).
func (mod *milpModel) footprint(p *workloads.Problem, offsets []int64) int64 {
	tops := make([]int64, len(mod.ub))
	for i, o := range offsets {
		tops[mod.space[i]] = max(tops[mod.space[i]], o+p.Buffers[i].Size)
	}
	var sum int64
	for _, t := range tops {
		sum += t
	}
	return sum
}

// place returns the lowest offsets (bytes) with each pair in the order the
// binaries give (z_ij >= 0.5: i below j), aligned and fixed as required;
// ok is false if the order has a cycle or puts a buffer above a fixed one
// it must fit under.
func (mod *milpModel) place(p *workloads.Problem, z map[string]float64) ([]int64, bool) {
	n := len(p.Buffers)
	below := make([][]int32, n) // below[j]: the buffers under j
	indeg := make([]int, n)
	above := make([][]int32, n)
	for _, e := range mod.pairs {
		lo, hi := e[0], e[1]
		if z["z"+strconv.Itoa(int(lo))+"_"+strconv.Itoa(int(hi))] < 0.5 {
			lo, hi = hi, lo
		}
		below[hi] = append(below[hi], lo)
		above[lo] = append(above[lo], hi)
		indeg[hi]++
	}
	queue := make([]int32, 0, n)
	for i := range n {
		if indeg[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	offsets := make([]int64, n)
	for k := 0; k < len(queue); k++ {
		j := queue[k]
		var low int64
		for _, i := range below[j] {
			low = max(low, offsets[i]+p.Buffers[i].Size)
		}
		if o, ok := p.FixedOf(int(j)); ok {
			if low > o {
				return nil, false
			}
			low = o
		} else {
			low = AlignUp(low, p.AlignOf(int(j)))
		}
		offsets[j] = low
		for _, h := range above[j] {
			if indeg[h]--; indeg[h] == 0 {
				queue = append(queue, h)
			}
		}
	}
	return offsets, len(queue) == n
}

// lastLines returns the last k lines of out, for an error message.
func lastLines(out []byte, k int) string {
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	return string(bytes.Join(lines[max(len(lines)-k, 0):], []byte(" | ")))
}
