package plot

import (
	"cmp"
	"fmt"
	"slices"

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
		ws, bars := results.Axes(best)
		notes := &barNotes{text: map[[2]string]string{}}
		ties := false
		for k, win := range winner {
			if planners[k[1]] > 1 {
				notes.text[k] = results.ShortLabel(win.subject)
				if win.ties > 0 {
					notes.text[k] += fmt.Sprintf(" +%d", win.ties)
					ties = true
				}
			}
		}
		notes.size, notes.room = noteFit(notes, ws, bars, o.size())
		fig, err := footprintFigure(best, results.KindStrategy, m, st, notes)
		if err != nil {
			return files, err
		}
		caption := "Each bar is the smallest " + runtimeMeasure.label[results.KindStrategy] +
			" among the runtime's planners in the sweep on that workload"
		if len(notes.text) > 0 {
			caption += "; the planner that reached it is named over the bar"
		}
		if ties {
			caption += " (+k: k more of its planners tie with it; the name that sorts first is shown)"
		}
		fig.caption = caption + ". " + fig.caption
		fs, err := o.Write(fig, dir, "runtime-"+results.Slug(f))
		files = append(files, fs...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// noteFit returns the font size of the planners' names over the bars, as
// large as the bars' width allows (between 3 and 6 pt), and the fraction
// of the plot's height they need above the bars.
func noteFit(notes *barNotes, ws, bars []string, s Size) (size, room float64) {
	// The plotting area is about 85% of the width and 55% of the height
	// (axes, legend and caption take the rest).
	barW := float64(s.Width/vg.Points(1)) * 0.85 / float64(len(ws)) * 0.8 / float64(len(bars))
	size = min(max(barW*0.9, 3), tickSize-1)
	var longest vg.Length
	sty := textStyle(size)
	for _, t := range notes.text {
		longest = max(longest, sty.Width(t))
	}
	room = min(0.5, float64(longest+vg.Points(3))/float64(s.Height*0.55))
	return size, room
}
