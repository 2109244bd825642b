package minimalloc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"membench/strategies"
	"membench/workloads"
)

// goldenCase is one instance solved by MiniMalloc's C++ (commit 9f5cf81):
// its input CSV, the capacity and parameters it was solved with, and what
// the C++ returned. Params holds the ten boolean SolverParams as 0/1 in
// the order of boolParams.
type goldenCase struct {
	Name string `json:"name"`
	// CSV is the input, or File names it (relative to this package).
	CSV        string  `json:"csv,omitempty"`
	File       string  `json:"file,omitempty"`
	Capacity   int64   `json:"capacity"`
	Params     string  `json:"params"`
	Heuristics string  `json:"heuristics"`
	Status     string  `json:"status"` // "ok", or the C++'s status code
	Height     int64   `json:"height,omitempty"`
	Backtracks int64   `json:"backtracks"`
	Offsets    []int64 `json:"offsets,omitempty"`
}

// parseCSV reads MiniMalloc's CSV as upstream's FromCsv does for the
// columns id, lower, upper, size, alignment, gaps and offset, where an
// offset of -1 means "not fixed" (the test driver's convention).
func parseCSV(text string) ([]buffer, error) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	cols := map[string]int{}
	for i, c := range strings.Split(lines[0], ",") {
		cols[c] = i
	}
	num := func(f []string, c string, def int64) int64 {
		k, ok := cols[c]
		if !ok {
			return def
		}
		v, err := strconv.ParseInt(f[k], 10, 64)
		if err != nil {
			panic(fmt.Sprintf("column %s: %v", c, err))
		}
		return v
	}
	var bufs []buffer
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		b := buffer{lower: num(f, "lower", 0), upper: num(f, "upper", 0), size: num(f, "size", 0),
			align: num(f, "alignment", 1), fixed: num(f, "offset", noOffset)}
		if k, ok := cols["gaps"]; ok {
			for _, g := range strings.Fields(f[k]) {
				var gp gap
				span, win, hasWin := strings.Cut(g, "@")
				if _, err := fmt.Sscanf(span, "%d-%d", &gp.lower, &gp.upper); err != nil {
					return nil, fmt.Errorf("gap %q: %v", g, err)
				}
				if hasWin {
					gp.hasWin = true
					if _, err := fmt.Sscanf(win, "%d:%d", &gp.win.lo, &gp.win.hi); err != nil {
						return nil, fmt.Errorf("gap %q: %v", g, err)
					}
				}
				b.gaps = append(b.gaps, gp)
			}
		}
		bufs = append(bufs, b)
	}
	return bufs, nil
}

// caseParams returns the solver parameters of a golden case.
func caseParams(c *goldenCase) solverParams {
	p := defaultParams()
	for k, b := range boolParams {
		b.set(&p, c.Params[k] == '1')
	}
	p.Heuristics = strings.Split(c.Heuristics, ",")
	return p
}

func readGolden(t testing.TB, file string) []goldenCase {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []goldenCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var c goldenCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s:%d: %v", file, len(cases)+1, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestGolden solves every case MiniMalloc's C++ solved and requires the
// same outcome: the same offsets and height, or the same failure, and the
// same number of backtracks (so the same search).
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no golden files in testdata")
	}
	for _, file := range files {
		for _, c := range readGolden(t, file) {
			t.Run(c.Name, func(t *testing.T) { checkGolden(t, &c) })
		}
	}
}

// TestGoldenPlan plans every golden case through the registry, from a
// workloads.Problem with the same forms and a spec with the same
// parameters, and requires the C++'s offsets, valid by membench's rules.
// Cases with a buffer of size 0 under check_dominance are left out: there
// the strategy sets them aside, where upstream fails.
func TestGoldenPlan(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	n := 0
	for _, file := range files {
		for _, c := range readGolden(t, file) {
			bufs, err := parseCSV(c.CSV)
			if err != nil {
				t.Fatal(err)
			}
			if c.Params[3] == '1' && slices.ContainsFunc(bufs, func(b buffer) bool { return b.size == 0 }) {
				continue
			}
			n++
			spec := fmt.Sprintf("minimalloc?capacity=%d&preordering_heuristics=%s", c.Capacity, c.Heuristics)
			for k, b := range boolParams {
				spec += fmt.Sprintf("&%s=%v", b.name, c.Params[k] == '1')
			}
			s, err := strategies.Lookup(spec)
			if err != nil {
				t.Fatal(err)
			}
			prob := toProblem(bufs)
			plan, err := s.Plan(context.Background(), prob)
			switch {
			case c.Status != "ok":
				if !errors.Is(err, ErrNoSolution) {
					t.Errorf("%s: got %v, C++ %s", c.Name, err, c.Status)
				}
			case err != nil:
				t.Errorf("%s: %v, C++ found %v", c.Name, err, c.Offsets)
			case !slices.Equal(plan.Offsets, c.Offsets):
				t.Errorf("%s: offsets %v, C++ %v", c.Name, plan.Offsets, c.Offsets)
			default:
				if err := strategies.Validate(prob, plan); err != nil {
					t.Errorf("%s: %v", c.Name, err)
				}
			}
		}
	}
	if n < 500 {
		t.Errorf("only %d cases checked", n)
	}
}

// toProblem returns bufs as a workloads.Problem with the forms they use.
func toProblem(bufs []buffer) *workloads.Problem {
	p := &workloads.Problem{Name: "golden"}
	n := len(bufs)
	for i, b := range bufs {
		p.Buffers = append(p.Buffers, workloads.Buffer{ID: i, First: int(b.lower), Last: int(b.upper) - 1, Size: b.size})
		if b.align > 1 {
			if p.Aligns == nil {
				p.Aligns = make([]int64, n)
			}
			p.Aligns[i] = b.align
		}
		if b.fixed != noOffset {
			if p.Fixed == nil {
				p.Fixed = slices.Repeat([]int64{workloads.NoOffset}, n)
			}
			p.Fixed[i] = b.fixed
		}
		for _, g := range b.gaps {
			if p.Gaps == nil {
				p.Gaps = make([][]workloads.Gap, n)
			}
			wg := workloads.Gap{First: int(g.lower), Last: int(g.upper) - 1}
			if g.hasWin {
				wg.Window = &workloads.Window{Lo: g.win.lo, Hi: g.win.hi}
			}
			p.Gaps[i] = append(p.Gaps[i], wg)
		}
	}
	return p
}

// TestChallenging solves MiniMalloc's challenging instances at capacity 1
// MiB as the C++ solved them (testdata/challenging): C, J and K, the
// quickest, or all of A–K with MINIMALLOC_CHALLENGING=all. -short skips
// it.
func TestChallenging(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of search; run without -short")
	}
	all := os.Getenv("MINIMALLOC_CHALLENGING") == "all"
	for _, c := range readGolden(t, "testdata/challenging/cases.jsonl") {
		if !all && !strings.HasSuffix(c.Name, "-C") && !strings.HasSuffix(c.Name, "-J") && !strings.HasSuffix(c.Name, "-K") {
			continue
		}
		t.Run(c.Name, func(t *testing.T) { checkGolden(t, &c) })
	}
}

// checkGolden solves c and requires the C++'s outcome: the same offsets
// and height, or the same failure, and the same number of backtracks (so
// the same search).
func checkGolden(t *testing.T, c *goldenCase) {
	t.Helper()
	text := c.CSV
	if c.File != "" {
		raw, err := os.ReadFile(c.File)
		if err != nil {
			t.Fatal(err)
		}
		text = string(raw)
	}
	bufs, err := parseCSV(text)
	if err != nil {
		t.Fatal(err)
	}
	p := caseParams(c)
	prob := toProblem(bufs)
	if err := workloads.CheckForms(prob); err != nil {
		t.Fatal(err)
	}
	eff := func(a, b int) (int64, bool) { return workloads.EffectiveSize(prob, a, b) }
	res, err := solveProblem(context.Background(), bufs, eff, c.Capacity, &p, 0)
	got := "ok"
	if err != nil {
		got = "NOT_FOUND"
	}
	if got != c.Status {
		t.Fatalf("status %s (%v), C++ %s", got, err, c.Status)
	}
	if c.Status == "ok" && (!slices.Equal(res.Offsets, c.Offsets) || res.Height != c.Height) {
		t.Errorf("offsets %v height %d, C++ %v height %d", res.Offsets, res.Height, c.Offsets, c.Height)
	}
	if res != nil && res.Backtracks != c.Backtracks {
		t.Errorf("%d backtracks, C++ %d", res.Backtracks, c.Backtracks)
	}
}

// randomCase draws a random instance: n buffers over few time steps,
// sizes from a small palette, and per flavour per-buffer alignments, gaps
// (windowed or not, some adjacent) and fixed offsets; a capacity near the
// peak of live bytes; and, for some, parameters other than the defaults.
func randomCase(rng *rand.Rand, name string, n int, vary bool) goldenCase {
	T := 2 + rng.IntN(n+2)
	aligned, gapped, fixed := rng.IntN(3) == 0, rng.IntN(3) == 0, rng.IntN(5) == 0
	sizes := []int64{1, 2, 3, 4, 5, 8, 12, 16, 24, 32, 64}
	if rng.IntN(5) == 0 {
		sizes = append(sizes, 0) // upstream never places these with check_dominance
	}
	type row struct {
		lower, upper, size, align, off int64
		gaps                           []string
	}
	rows := make([]row, n)
	live := make([]int64, T+1)
	for i := range rows {
		lo := int64(rng.IntN(T))
		up := lo + 1 + int64(rng.IntN(1+rng.IntN(T-int(lo)+1)))
		r := row{lower: lo, upper: up, size: sizes[rng.IntN(len(sizes))], align: 1, off: -1}
		if aligned && rng.IntN(2) == 0 {
			r.align = []int64{1, 2, 4, 8, 16}[rng.IntN(5)]
		}
		if gapped && up-lo >= 3 && rng.IntN(2) == 0 {
			t := lo + 1 + int64(rng.IntN(int(up-lo-1)))
			for t < up && rng.IntN(3) > 0 {
				e := t + 1 + int64(rng.IntN(int(up-t)))
				if e > up {
					e = up
				}
				g := fmt.Sprintf("%d-%d", t, e)
				if r.size > 0 && rng.IntN(2) == 0 {
					a := int64(rng.IntN(int(r.size) + 1))
					b := a + int64(rng.IntN(int(r.size-a)+1))
					g += fmt.Sprintf("@%d:%d", a, b)
				}
				r.gaps = append(r.gaps, g)
				if rng.IntN(3) == 0 {
					t = e // adjacent
				} else {
					t = e + 1 + int64(rng.IntN(3))
				}
			}
		}
		if fixed && rng.IntN(4) == 0 {
			r.off = int64(rng.IntN(64))
			if r.align > 1 {
				r.off -= r.off % r.align
			}
		}
		for t := lo; t < up && int(t) < len(live); t++ {
			live[t] += r.size
		}
		rows[i] = r
	}
	var peak int64
	for _, v := range live {
		peak = max(peak, v)
	}
	var sb strings.Builder
	sb.WriteString("id,lower,upper,size")
	if aligned {
		sb.WriteString(",alignment")
	}
	if gapped {
		sb.WriteString(",gaps")
	}
	if fixed {
		sb.WriteString(",offset")
	}
	sb.WriteString("\n")
	for i, r := range rows {
		fmt.Fprintf(&sb, "%d,%d,%d,%d", i, r.lower, r.upper, r.size)
		if aligned {
			fmt.Fprintf(&sb, ",%d", r.align)
		}
		if gapped {
			fmt.Fprintf(&sb, ",%s", strings.Join(r.gaps, " "))
		}
		if fixed {
			fmt.Fprintf(&sb, ",%d", r.off)
		}
		sb.WriteString("\n")
	}
	c := goldenCase{Name: name, CSV: sb.String(), Params: "1111111110", Heuristics: "WAT,TAW,TWA"}
	c.Capacity = peak + int64(rng.IntN(int(peak/2)+8))
	if rng.IntN(4) == 0 {
		c.Capacity = peak + int64(rng.IntN(int(peak)+8))
	}
	if fixed {
		c.Capacity += 64 + 64
	}
	if rng.IntN(4) == 0 {
		c.Params = c.Params[:9] + "1" // minimise
	}
	if vary {
		varyParams(rng, &c)
	}
	return c
}

// varyParams flips each of c's nine boolean parameters with chance 1/4
// and draws its heuristics from a fixed list.
func varyParams(rng *rand.Rand, c *goldenCase) {
	p := []byte(c.Params)
	for k := range 9 {
		if rng.IntN(4) == 0 {
			p[k] ^= 1
		}
	}
	c.Params = string(p)
	c.Heuristics = []string{"WAT", "TWA", "TAW,WAT", "A", "Z,O", "CLOUZ,WAT", "U", "L,T,W", "ZAW"}[rng.IntN(9)]
}

// TestGenerateGolden writes goldens from MiniMalloc's C++ ($MINIMALLOC_OUT),
// run through the driver program named by $MINIMALLOC_DRIVER (see
// testdata/README.md); skipped without it.
func TestGenerateGolden(t *testing.T) {
	driver := os.Getenv("MINIMALLOC_DRIVER")
	if driver == "" {
		t.Skip("set MINIMALLOC_DRIVER to MiniMalloc's test driver to regenerate the goldens")
	}
	count, _ := strconv.Atoi(os.Getenv("MINIMALLOC_CASES"))
	if count == 0 {
		count = 400
	}
	out := os.Getenv("MINIMALLOC_OUT")
	if out == "" {
		out = "testdata/random.jsonl"
	}
	seed, _ := strconv.ParseUint(os.Getenv("MINIMALLOC_SEED"), 10, 64)
	rng := rand.New(rand.NewPCG(seed, 21))
	var buf bytes.Buffer
	dir := t.TempDir()
	kept := 0
	for k := 0; kept < count; k++ {
		n := 1 + rng.IntN(12)
		vary := rng.IntN(3) == 0
		if k%4 == 3 && !vary {
			n = 20 + rng.IntN(60)
		}
		c := randomCase(rng, fmt.Sprintf("r%d-%d", seed, k), n, vary)
		in := filepath.Join(dir, "in.csv")
		if err := os.WriteFile(in, []byte(c.CSV), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		raw, err := exec.CommandContext(ctx, driver, in, strconv.FormatInt(c.Capacity, 10), c.Params, c.Heuristics, "0").Output()
		cancel()
		if err != nil {
			continue // too slow for a golden
		}
		lines := strings.Fields(string(raw))
		c.Status = lines[0]
		if c.Status == "ok" {
			c.Height, _ = strconv.ParseInt(lines[1], 10, 64)
			c.Backtracks, _ = strconv.ParseInt(lines[2], 10, 64)
			for _, v := range lines[4:] {
				o, _ := strconv.ParseInt(v, 10, 64)
				c.Offsets = append(c.Offsets, o)
			}
		} else {
			c.Status = lines[1]
			c.Backtracks, _ = strconv.ParseInt(lines[2], 10, 64)
		}
		line, _ := json.Marshal(c)
		buf.Write(line)
		buf.WriteByte('\n')
		kept++
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
