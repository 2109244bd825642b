package results

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteSummary writes summary.md: for strategies and for allocators, a
// table of footprint / LB_load per workload and subject and a table of
// median time, each closed by the geometric mean over workloads.
func WriteSummary(w io.Writer, title string, recs []Record) error {
	groups := Aggregate(recs)
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", title)
	fmt.Fprintf(&b, "%d records, %d (workload, subject) pairs.\n", len(recs), len(groups))
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
		workloads, subjects := Axes(gs)
		cell := map[[2]string]*Group{}
		for _, g := range gs {
			cell[[2]string{g.Workload, g.Subject}] = g
		}
		name, what, unit := "Strategies", "footprint", "planning time per call"
		if kind == KindAllocator {
			name, what, unit = "Allocators", "peak reserved", "time per trace event"
		}
		fmt.Fprintf(&b, "\n## %s: %s / LB_load\n\n", name, what)
		table(&b, workloads, subjects, cell,
			func(g *Group) (string, float64) { return fmt.Sprintf("%.4f", g.Ratio), g.Ratio },
			func(x float64) string { return fmt.Sprintf("%.4f", x) })
		fmt.Fprintf(&b, "\n## %s: median %s\n\n", name, unit)
		table(&b, workloads, subjects, cell,
			func(g *Group) (string, float64) { return fmtNs(g.MedianNs), g.MedianNs },
			fmtNs)
	}
	_, err := io.WriteString(w, b.String())
	return err
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

// table writes one markdown table; val gives a cell's text and its value
// for the geometric mean.
func table(b *strings.Builder, workloads, subjects []string, cell map[[2]string]*Group,
	val func(*Group) (string, float64), fmtMean func(float64) string) {
	b.WriteString("| workload | n |")
	for _, s := range subjects {
		fmt.Fprintf(b, " %s |", mdEscape(s))
	}
	b.WriteString("\n|---|---:|")
	for range subjects {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	cols := make([][]float64, len(subjects))
	for _, w := range workloads {
		n := 0
		for _, s := range subjects {
			if g := cell[[2]string{w, s}]; g != nil {
				n = g.N
				break
			}
		}
		fmt.Fprintf(b, "| %s | %d |", mdEscape(w), n)
		for j, s := range subjects {
			g := cell[[2]string{w, s}]
			switch {
			case g == nil:
				b.WriteString(" |")
			case g.OK == 0:
				fmt.Fprintf(b, " %s |", g.Failed[0])
			default:
				text, v := val(g)
				cols[j] = append(cols[j], v)
				fmt.Fprintf(b, " %s |", text)
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("| **geomean** | |")
	for j := range subjects {
		if m, ok := GeoMean(cols[j]); ok {
			fmt.Fprintf(b, " **%s** |", fmtMean(m))
		} else {
			b.WriteString(" |")
		}
	}
	b.WriteString("\n")
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
