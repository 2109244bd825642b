package results

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// summaryTable is one table of summary.md per subject kind: a measure of
// every (workload, subject) pair and its geometric mean. A further
// measure (footprint / best known) is one more entry of summaryTables.
type summaryTable struct {
	heading map[string]string
	// bound adds a column with the workload's LB_load in MiB.
	bound bool
	// peaks leaves the table out where no record has a peak breakdown
	// (records written before there were any).
	peaks bool
	// best adds a column with the best known footprint in MiB, starred
	// where it is proved optimal, and leaves the table out where no
	// workload has a best known.
	best bool
	cell func(*Group) (text string, v float64)
	mean func(float64) string
}

var summaryTables = []summaryTable{
	{
		heading: map[string]string{KindStrategy: "footprint / LB_load (footprint in MiB)",
			KindAllocator: "peak reserved / LB_load (peak reserved in MiB)"},
		bound: true,
		cell: func(g *Group) (string, float64) {
			return fmt.Sprintf("%.4f (%s)", g.Ratio, MiB(g.Footprint)), g.Ratio
		},
		mean: func(x float64) string { return fmt.Sprintf("%.4f", x) },
	},
	{
		heading: map[string]string{KindStrategy: "footprint / best known (" + optimalMark + ": the best known is proved optimal)"},
		best:    true,
		cell: func(g *Group) (string, float64) {
			if g.BestRatio == 0 {
				return notRun, math.NaN()
			}
			return fmt.Sprintf("%.4f", g.BestRatio), g.BestRatio
		},
		mean: func(x float64) string { return fmt.Sprintf("%.4f", x) },
	},
	{
		// Allocators only: internal + external fragmentation as a share of
		// reserved at the peak. The mean is over reserved / requested, whose
		// geometric mean m gives back a share, 1 - 1/m.
		heading: map[string]string{KindAllocator: "fragmentation at the peak: (internal + external) / reserved (internal, external)"},
		peaks:   true,
		cell: func(g *Group) (string, float64) {
			p := g.Alloc.peak()
			if p == nil || p.Reserved == 0 || p.Requested == 0 {
				return notRun, math.NaN()
			}
			r := float64(p.Reserved)
			return fmt.Sprintf("%.1f%% (%.1f%%, %.1f%%)", 100*float64(p.Internal+p.External)/r, 100*float64(p.Internal)/r, 100*float64(p.External)/r),
				r / float64(p.Requested)
		},
		mean: func(m float64) string { return fmt.Sprintf("%.1f%%", 100*(1-1/m)) },
	},
	{
		heading: map[string]string{KindStrategy: "median planning time per call",
			KindAllocator: "median time per trace event"},
		cell: func(g *Group) (string, float64) { return fmtNs(g.MedianNs), g.MedianNs },
		mean: fmtNs,
	},
}

// WriteSummary writes summary.md: for strategies and for allocators, a
// table of footprint / LB_load with absolute sizes and a table of median
// time per workload and subject, each closed by the geometric mean over the
// workloads every subject completed. table gives the best known of each
// problem beyond the records' own (BestKnown).
func WriteSummary(w io.Writer, title string, recs []Record, table BestTable) error {
	groups := Aggregate(recs, table)
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", title)
	fmt.Fprintf(&b, "%d records, %d (workload, subject) pairs. Sizes are in MiB (2^20 bytes); "+
		"%s marks a cell not run, %s a failed cell with its status, %s a subject that does not support the workload's "+
		"problem form or size type.\n", len(recs), len(groups), notRun, failed, unsupported)
	for _, kind := range []string{KindStrategy, KindAllocator} {
		var gs []*Group
		for _, g := range groups {
			if g.Kind == kind {
				gs = append(gs, g)
			}
		}
		if len(gs) == 0 {
			continue
		}
		t := newGrid(gs)
		name := "Strategies"
		if kind == KindAllocator {
			name = "Allocators"
		}
		for _, st := range summaryTables {
			if st.heading[kind] == "" || st.peaks && !slices.ContainsFunc(gs, func(g *Group) bool { return g.Alloc.peak() != nil }) ||
				st.best && !slices.ContainsFunc(gs, func(g *Group) bool { return g.Best.Footprint > 0 }) {
				continue
			}
			fmt.Fprintf(&b, "\n## %s: %s\n\n", name, st.heading[kind])
			t.write(&b, st)
			t.writeMeanNote(&b)
		}
		writeSpaces(&b, name, gs)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSpaces writes, for the groups whose problems have several memory
// spaces, each space's footprint against its LB_load; nothing when none
// has.
func writeSpaces(b *strings.Builder, name string, gs []*Group) {
	if !slices.ContainsFunc(gs, func(g *Group) bool { return g.Spaces != nil }) {
		return
	}
	fmt.Fprintf(b, "\n## %s: memory spaces, footprint / LB_load (footprint in MiB)\n\n", name)
	b.WriteString("| workload | subject | space | LB_load (MiB) | capacity (MiB) | footprint / LB_load |\n|---|---|---|---:|---:|---:|\n")
	ws, _ := Axes(gs)
	label := map[string]string{}
	for i, l := range ShortLabels(ws) {
		label[ws[i]] = l
	}
	for _, g := range gs {
		for _, s := range g.Spaces {
			capacity := notRun
			if s.Capacity > 0 {
				capacity = MiB(s.Capacity)
			}
			r := 0.0
			if s.LBLoad > 0 {
				r = float64(s.Footprint) / float64(s.LBLoad)
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %.4f (%s) |\n", mdEscape(label[g.Workload]), mdEscape(g.Subject), mdEscape(s.Name),
				MiB(s.LBLoad), capacity, r, MiB(s.Footprint))
		}
	}
}

// Marks of cells without a value, and of a proved optimum.
const (
	notRun      = "—"
	failed      = "✗"
	unsupported = "n/a"
	optimalMark = "★"
)

// MiB writes a byte count in MiB with three significant digits and no
// exponent.
func MiB(bytes int64) string {
	s := strconv.FormatFloat(float64(bytes)/(1<<20), 'g', 3, 64)
	if strings.ContainsRune(s, 'e') {
		v, _ := strconv.ParseFloat(s, 64)
		s = strconv.FormatFloat(v, 'f', -1, 64)
	}
	return s
}

// grid is the (workload, subject) cells of one kind, with the workloads
// every subject completed: the ones geometric means are taken over, so
// that a subject that fails on hard workloads does not look better for it.
type grid struct {
	workloads, subjects []string
	cell                map[[2]string]*Group
	// common are the workloads every subject with any ok cell completed;
	// none lists the subjects that completed no workload.
	common map[string]bool
	none   []string
}

func newGrid(gs []*Group) *grid {
	t := &grid{cell: map[[2]string]*Group{}, common: map[string]bool{}}
	t.workloads, t.subjects = Axes(gs)
	okSubs := map[string]bool{}
	for _, g := range gs {
		t.cell[[2]string{g.Workload, g.Subject}] = g
		if g.OK > 0 {
			okSubs[g.Subject] = true
		}
	}
	for _, s := range t.subjects {
		if !okSubs[s] {
			t.none = append(t.none, s)
		}
	}
	for _, w := range t.workloads {
		t.common[w] = true
		for s := range okSubs {
			if g := t.cell[[2]string{w, s}]; g == nil || g.OK == 0 {
				t.common[w] = false
			}
		}
	}
	return t
}

// write writes one markdown table of st.
func (t *grid) write(b *strings.Builder, st summaryTable) {
	wl, sl := ShortLabels(t.workloads), ShortLabels(t.subjects)
	b.WriteString("| workload | n |")
	align := "\n|---|---:|"
	if st.bound {
		b.WriteString(" LB_load (MiB) |")
		align += "---:|"
	}
	if st.best {
		b.WriteString(" best known (MiB) |")
		align += "---:|"
	}
	for _, s := range sl {
		fmt.Fprintf(b, " %s |", mdEscape(s))
		align += "---:|"
	}
	b.WriteString(align + "\n")
	cols := make([][]float64, len(t.subjects))
	for i, w := range t.workloads {
		var first *Group
		for _, s := range t.subjects {
			if g := t.cell[[2]string{w, s}]; g != nil {
				first = g
				break
			}
		}
		fmt.Fprintf(b, "| %s | %d |", mdEscape(wl[i]), first.N)
		if st.bound {
			fmt.Fprintf(b, " %s |", MiB(first.LBLoad))
		}
		if st.best {
			switch bk := first.Best; {
			case bk.Footprint == 0:
				fmt.Fprintf(b, " %s |", notRun)
			case bk.Optimal():
				fmt.Fprintf(b, " %s %s |", MiB(bk.Footprint), optimalMark)
			default:
				fmt.Fprintf(b, " %s |", MiB(bk.Footprint))
			}
		}
		for j, s := range t.subjects {
			g := t.cell[[2]string{w, s}]
			switch {
			case g == nil:
				fmt.Fprintf(b, " %s |", notRun)
			case g.OK == 0 && slices.Equal(distinct(g.Failed), []string{StatusUnsupported}):
				fmt.Fprintf(b, " %s |", unsupported)
			case g.OK == 0:
				fmt.Fprintf(b, " %s %s |", failed, strings.Join(distinct(g.Failed), "/"))
			default:
				text, v := st.cell(g)
				if t.common[w] && !math.IsNaN(v) {
					cols[j] = append(cols[j], v)
				}
				fmt.Fprintf(b, " %s |", text)
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("| **geomean** | |")
	if st.bound {
		b.WriteString(" |")
	}
	if st.best {
		b.WriteString(" |")
	}
	for j := range t.subjects {
		if m, ok := GeoMean(cols[j]); ok {
			fmt.Fprintf(b, " **%s** |", st.mean(m))
		} else {
			fmt.Fprintf(b, " %s |", notRun)
		}
	}
	b.WriteString("\n")
}

// writeMeanNote says which workloads the geometric means cover and which
// were left out, and why.
func (t *grid) writeMeanNote(b *strings.Builder) {
	wl := ShortLabels(t.workloads)
	var in int
	var out []string
	for i, w := range t.workloads {
		if t.common[w] {
			in++
			continue
		}
		var why []string
		for _, s := range t.subjects {
			if slices.Contains(t.none, s) {
				continue
			}
			switch g := t.cell[[2]string{w, s}]; {
			case g == nil:
				why = append(why, ShortLabel(s)+" not run")
			case g.OK == 0:
				why = append(why, ShortLabel(s)+" "+strings.Join(distinct(g.Failed), "/"))
			}
		}
		out = append(out, fmt.Sprintf("%s (%s)", wl[i], strings.Join(why, ", ")))
	}
	fmt.Fprintf(b, "\nGeometric means are over the %d workload%s every subject completed", in, plural(in))
	if len(out) > 0 {
		fmt.Fprintf(b, "; left out: %s", strings.Join(out, "; "))
	}
	b.WriteString(".")
	if len(t.none) > 0 {
		fmt.Fprintf(b, " No mean for %s, which completed no workload.", strings.Join(ShortLabels(t.none), ", "))
	}
	b.WriteString("\n")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// distinct returns xs without repeats, in order.
func distinct(xs []string) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// Axes returns the workloads and subjects of groups, each in order of
// first appearance: the rows and columns of tables and figures.
func Axes(gs []*Group) (workloads, subjects []string) {
	seenW, seenS := map[string]bool{}, map[string]bool{}
	for _, g := range gs {
		if !seenW[g.Workload] {
			seenW[g.Workload] = true
			workloads = append(workloads, g.Workload)
		}
		if !seenS[g.Subject] {
			seenS[g.Subject] = true
			subjects = append(subjects, g.Subject)
		}
	}
	return workloads, subjects
}

func fmtNs(ns float64) string {
	if ns <= 0 {
		return "–"
	}
	if ns < 1e3 {
		return fmt.Sprintf("%.1fns", ns)
	}
	return time.Duration(ns).Round(roundFor(ns)).String()
}

// roundFor keeps about three significant digits.
func roundFor(ns float64) time.Duration {
	switch {
	case ns < 1e6:
		return time.Nanosecond * 10
	case ns < 1e9:
		return time.Microsecond * 10
	}
	return time.Millisecond * 10
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// peak returns the breakdown at the peak, nil where the record has none.
func (s *AllocStats) peak() *MemBreakdown {
	if s == nil {
		return nil
	}
	return s.Peak
}
