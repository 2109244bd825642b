package plot

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot/vg"

	"membench/results"
)

// runtimeMeasure is the measure the runtime figure compares: footprint /
// LB_load. Once a best-known footprint per workload is recorded, a
// footprint / best known measure takes its place here (and in measures).
var runtimeMeasure = measures[0]

// bestPerRuntime reduces the strategy groups to one group per workload and
// runtime, whose Subject is the runtime: the ok group of the runtime's
// planners with the smallest value (ties: the smaller footprint, then the
// subject that sorts first), or, where every planner of the runtime
// failed on the workload, a failed group with their statuses. winner maps
// (workload, runtime) to the planner chosen and the number of other
// planners of the runtime that tie with it exactly. Allocators and strategies
// missing from runtimes are left out. Groups come in the order of first
// appearance of the workload, runtimes sorted by name.
func bestPerRuntime(groups []*results.Group, runtimes map[string]string, value func(*results.Group) float64) (best []*results.Group, winner map[[2]string]won) {
	type key [2]string
	pick := map[key]*results.Group{}
	oks := map[key][]*results.Group{}
	var failed = map[key][]string{}
	var ws []string
	byW := map[string][]string{}
	for _, g := range groups {
		rt, ok := runtimes[g.Subject]
		if g.Kind != results.KindStrategy || !ok {
			continue
		}
		if _, ok := byW[g.Workload]; !ok {
			ws = append(ws, g.Workload)
			byW[g.Workload] = nil
		}
		if !slices.Contains(byW[g.Workload], rt) {
			byW[g.Workload] = append(byW[g.Workload], rt)
		}
		k := key{g.Workload, rt}
		if g.OK == 0 {
			for _, f := range g.Failed {
				if !slices.Contains(failed[k], f) {
					failed[k] = append(failed[k], f)
				}
			}
			continue
		}
		oks[k] = append(oks[k], g)
		if cur := pick[k]; cur == nil || cmp.Or(cmp.Compare(value(g), value(cur)),
			cmp.Compare(g.Footprint, cur.Footprint), cmp.Compare(g.Subject, cur.Subject)) < 0 {
			pick[k] = g
		}
	}
	winner = map[[2]string]won{}
	for _, w := range ws {
		rts := byW[w]
		slices.Sort(rts)
		for _, rt := range rts {
			k := key{w, rt}
			g := pick[k]
			if g == nil {
				best = append(best, &results.Group{Workload: w, Subject: rt, Kind: results.KindStrategy, Failed: failed[k]})
				continue
			}
			b := *g
			b.Subject, b.Ratio = rt, value(g)
			best = append(best, &b)
			win := won{subject: g.Subject}
			for _, o := range oks[k] {
				if o != g && value(o) == value(g) && o.Footprint == g.Footprint {
					win.ties++
				}
			}
			winner[k] = win
		}
	}
	return best, winner
}

// won is the planner that gave a runtime's bar, and how many others of
// the runtime tie with it.
type won struct {
	subject string
	ties    int
}

// sweepRuntimes returns the runtimes of the sweep's strategies, sorted.
func sweepRuntimes(groups []*results.Group, runtimes map[string]string) []string {
	var rts []string
	for _, g := range groups {
		if rt, ok := runtimes[g.Subject]; ok && g.Kind == results.KindStrategy && !slices.Contains(rts, rt) {
			rts = append(rts, rt)
		}
	}
	slices.Sort(rts)
	return rts
}

// runtimeFigures draws runtime-<group> per workload group when the sweep's
// strategies belong to two runtimes or more: grouped bars, one group per
// workload and one bar per runtime, each bar the best of that runtime's
// planners, named over it. A runtime keeps one colour in every such
// figure of the sweep.
func runtimeFigures(dir string, groups []*results.Group, _ *Styles, o Options) ([]string, error) {
	rts := sweepRuntimes(groups, o.Runtimes)
	if len(rts) < 2 {
		return nil, nil
	}
	st := &Styles{index: map[string]int{}}
	for i, rt := range rts {
		st.index[rt] = i
	}
	// Several planners of one runtime in the sweep: say which one won.
	planners := map[string]int{}
	var seen []string
	for _, g := range groups {
		if rt, ok := o.Runtimes[g.Subject]; ok && g.Kind == results.KindStrategy && !slices.Contains(seen, g.Subject) {
			seen = append(seen, g.Subject)
			planners[rt]++
		}
	}
	m := measure{
		name:  "runtime",
		label: runtimeMeasure.label,
		title: map[string]string{results.KindStrategy: "Best planner of each runtime"},
		value: func(g *results.Group) float64 { return g.Ratio },
	}
	var files []string
	byFam := map[string][]*results.Group{}
	var fams []string
	for _, g := range groups {
		f := figureGroup(g.Workload)
		if _, ok := byFam[f]; !ok {
			fams = append(fams, f)
		}
		byFam[f] = append(byFam[f], g)
	}
	for _, f := range fams {
		best, winner := bestPerRuntime(byFam[f], o.Runtimes, runtimeMeasure.value)
		if len(best) == 0 {
			continue
		}
		name := "runtime-" + results.Slug(f)
		ws, bars := results.Axes(best)
		notes := &barNotes{text: map[[2]string]string{}}
		ties := false
		for k, win := range winner {
			if planners[k[1]] > 1 {
				notes.text[k] = win.label()
				ties = ties || win.ties > 0
			}
		}
		var fit bool
		notes.size, notes.room, fit = noteFit(notes, ws, bars, o.size())
		if !fit {
			notes.text = nil
		}
		fig, err := footprintFigure(best, results.KindStrategy, m, st, notes)
		if err != nil {
			return files, err
		}
		caption := "Each bar is the smallest " + runtimeMeasure.label[results.KindStrategy] +
			" among the runtime's planners in the sweep on that workload; " + name + ".md names the planner that reached it"
		if len(notes.text) > 0 {
			caption += ", as does the name over the bar"
		}
		if ties {
			caption += " (+k: k more of the runtime's planners tie with it; the name that sorts first is shown)"
		}
		fig.caption = caption + ". " + fig.caption
		fs, err := o.Write(fig, dir, name)
		files = append(files, fs...)
		if err != nil {
			return files, err
		}
		table := filepath.Join(dir, name+".md")
		if err := results.WriteFileAtomic(table, runtimeTable(f, best, winner)); err != nil {
			return files, err
		}
		files = append(files, table)
	}
	return files, nil
}

// label names the planner over its bar and in the table.
func (w won) label() string {
	if w.ties > 0 {
		return fmt.Sprintf("%s +%d", results.ShortLabel(w.subject), w.ties)
	}
	return results.ShortLabel(w.subject)
}

// runtimeTable is the runtime figure of workload group fam as a Markdown
// table: a row per workload, a column per runtime, each cell the bar's
// value and the planner that reached it, or ✗ and the statuses where every
// planner of the runtime failed.
func runtimeTable(fam string, best []*results.Group, winner map[[2]string]won) []byte {
	ws, rts := results.Axes(best)
	slices.Sort(rts)
	cell := map[[2]string]*results.Group{}
	for _, g := range best {
		cell[[2]string{g.Workload, g.Subject}] = g
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Best planner of each runtime: %s\n\n", fam)
	fmt.Fprintf(&b, "Each cell is the smallest %s among the runtime's planners in the sweep on the workload, "+
		"and the planner that reached it (+k: k more of the runtime's planners tie with it); "+
		"✗ marks a runtime whose planners all failed, — one not run.\n\n", runtimeMeasure.label[results.KindStrategy])
	b.WriteString("| workload |")
	for _, rt := range rts {
		b.WriteString(" " + rt + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(rts)) + "\n")
	for i, label := range results.ShortLabels(ws) {
		b.WriteString("| " + label + " |")
		for _, rt := range rts {
			k := [2]string{ws[i], rt}
			switch g := cell[k]; {
			case g == nil:
				b.WriteString(" — |")
			case g.OK == 0:
				b.WriteString(" ✗ " + strings.Join(g.Failed, ", ") + " |")
			default:
				fmt.Fprintf(&b, " %.4f %s |", g.Ratio, winner[k].label())
			}
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// minNote is the smallest font size planners are named over bars in: where
// bars are narrower, the names would overlap, and only the table has them.
const minNote = 3.5

// noteFit returns the font size of the planners' names over the bars, as
// large as the bars' width allows (at most 6 pt), the fraction of the
// plot's height they need above the bars, and whether they fit at all.
func noteFit(notes *barNotes, ws, bars []string, s Size) (size, room float64, fit bool) {
	// The plotting area is about 85% of the width and 55% of the height
	// (axes, legend and caption take the rest).
	barW := float64(s.Width/vg.Points(1)) * 0.85 / float64(len(ws)) * 0.8 / float64(len(bars))
	size = min(barW*0.9, tickSize-1)
	if size < minNote {
		return size, 0, false
	}
	var longest vg.Length
	sty := textStyle(size)
	for _, t := range notes.text {
		longest = max(longest, sty.Width(t))
	}
	room = min(0.5, float64(longest+vg.Points(3))/float64(s.Height*0.55))
	return size, room, true
}
