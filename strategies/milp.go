package strategies

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
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
//	x_i + s_i <= x_j + M(1 - z_ij),  x_j + s_j <= x_i + M z_ij,  x_i + s_i <= F_m,
//
// minimising the sum of the F_m. M is the footprint of the best of
// OmniMalloc's greedy first-fit orders (greedy.go's order=all), which also
// bounds every F_m from above; LB_load bounds each from below. An aligned buffer's offset is its alignment times an
// integer variable, a fixed offset is a fixed bound, a memory space with a
// capacity bounds its F_m. All quantities are first divided by the
// greatest common divisor of the sizes, alignments and fixed offsets.
//
// The program is written in CPLEX LP format and solved by COIN-OR CBC
// (Debian's coinor-cbc) run as a child process, which a cancelled context
// kills, under CBC's own wall-time (timeout) and node (nodes) limits, with
// an absolute gap under one unit (the objective is integral) and CBC's
// cutting planes off: on big-M rows with coefficients near 2^40 they cut
// off feasible plans (CBC then "proves" a feasible program infeasible),
// and they do not strengthen this program's bound. The plan
// takes from CBC's incumbent only which buffer of each pair lies below and
// places every buffer at the lowest offset that order allows (a longest
// path in whole bytes), so CBC's floating-point tolerances never reach the
// offsets; without an incumbent the greedy plan is the plan, and where it
// meets LB_load in every space CBC is not run. Plan.Bound is
// CBC's lower bound (at least LB_load), Plan.Optimal that CBC proved the
// plan optimal.
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
}

func (m milp) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	bin, err := exec.LookPath("cbc")
	if err != nil {
		return nil, fmt.Errorf("milp: %w: COIN-OR CBC (cbc) is not on PATH; install it with apt-get install coinor-cbc", ErrSolverMissing)
	}
	mod, err := newMILPModel(ctx, p)
	if err != nil {
		return nil, err
	}
	if mod.firstOptimal() {
		return mod.plan(p, cbcResult{}, nil)
	}
	dir, err := os.MkdirTemp("", "membench-milp-")
	if err != nil {
		return nil, fmt.Errorf("milp: %w", err)
	}
	defer os.RemoveAll(dir)
	lp := filepath.Join(dir, "model.lp")
	if err := mod.write(ctx, lp); err != nil {
		return nil, err
	}
	sol := filepath.Join(dir, "solution.txt")
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
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.WaitDelay = time.Second
	out, runErr := cmd.CombinedOutput()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if runErr != nil {
		return nil, fmt.Errorf("milp: cbc: %v: %s", runErr, lastLines(out, 5))
	}
	res := parseCBCLog(out)
	var z map[string]float64
	if res.incumbent {
		if z, err = readCBCSolution(sol); err != nil {
			return nil, err
		}
	}
	return mod.plan(p, res, z)
}

// newMILPModel plans each memory space greedily (the big M and the
// plan to fall back on) and lists the pairs of buffers that need an order.
func newMILPModel(ctx context.Context, p *workloads.Problem) (*milpModel, error) {
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
			if sp.Buffers[j].Size == 0 {
				continue // overlaps nothing
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
		mod.lb = append(mod.lb, max((sp.LoadBound()+u-1)/u, mod.stackBound(sp, idx[m])))
		var c int64
		if m < len(p.Memories) && p.Memories[m].Capacity > 0 {
			c = max(p.Memories[m].Capacity/u, 0)
		}
		mod.cap = append(mod.cap, c)
	}
	return mod, nil
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
	return roundUp(mod.size[i], gcd(mod.step[i], mod.step[j]))
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
				r := roundUp(s, g)
				sum += r
				slack = max(slack, r-s)
			}
		}
		best = max(best, sum-slack)
	}
	return best
}

// roundUp rounds x up to a multiple of g, or returns x where g <= 1.
func roundUp(x, g int64) int64 {
	if g <= 1 {
		return x
	}
	return (x + g - 1) / g * g
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// write writes the program in CPLEX LP format to path.
func (mod *milpModel) write(ctx context.Context, path string) error {
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
		fmt.Fprintf(w, " r%d: x%d - F%d <= %d\n", row, i, mod.space[i], -s)
		row++
		if mod.align[i] > 1 && mod.pin[i] < 0 {
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
		ub := mod.ub[mod.space[i]]
		dij, dji := mod.gap(i, j), mod.gap(j, i)
		mij, mji := ub-mod.size[i]+dij, ub-mod.size[j]+dji
		fmt.Fprintf(w, " r%d: x%d - x%d + %d z%d_%d <= %d\n", row, i, j, mij, i, j, mij-dij)
		fmt.Fprintf(w, " r%d: x%d - x%d - %d z%d_%d <= %d\n", row+1, j, i, mji, i, j, -dji)
		row += 2
	}
	fmt.Fprintln(w, "Bounds")
	for i, s := range mod.size {
		if mod.pin[i] >= 0 {
			fmt.Fprintf(w, " x%d = %d\n", i, mod.pin[i])
		} else {
			fmt.Fprintf(w, " 0 <= x%d <= %d\n", i, max(mod.ub[mod.space[i]]-s, 0))
		}
	}
	for m, ub := range mod.ub {
		if c := mod.cap[m]; c > 0 && c < ub {
			ub = c
		}
		fmt.Fprintf(w, " %d <= F%d <= %d\n", min(mod.lb[m], ub), m, ub)
	}
	fmt.Fprintln(w, "General")
	for i := range mod.size {
		if mod.align[i] > 1 && mod.pin[i] < 0 {
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
	plan.Bound = max(plan.Bound, stacks)
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
