// Package best holds the best-known table (DESIGN §10): for each problem,
// keyed by its content hash (the records' `hash`, so a renamed file still
// matches), the smallest footprint any validated plan reached, the largest
// lower bound any subject proved, whether the two meet (proved optimal),
// and how each value was obtained.
//
// The table ships as best.json beside this file. Nothing in it is typed in
// by hand: it is filled by membench itself, from the repository root, with
//
//	membench run --config scripts/configs/best-known.toml --out out/best-known
//	membench best update out/best-known
//
// and `membench best show` prints it. An update accepts only records of
// strategies whose plans were validated (status ok) and only ever improves
// a value: a smaller footprint, a larger bound.
package best

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"membench/results"
)

// Source says how a value was obtained.
type Source struct {
	// Subject is the strategy spec that produced it ("LB_load" for the
	// load bound every record carries).
	Subject string `json:"subject"`
	// Revision is the membench git revision of the sweep.
	Revision string `json:"revision"`
	// Date is the day of the sweep, YYYY-MM-DD.
	Date string `json:"date"`
}

// Entry is the best known of one problem.
type Entry struct {
	// Workload is the workload spec the problem was last seen as.
	Workload string `json:"workload"`
	N        int    `json:"n"`
	LBLoad   int64  `json:"lb_load"`
	// Footprint is the smallest footprint of a validated plan.
	Footprint   int64  `json:"footprint"`
	FootprintBy Source `json:"footprint_by"`
	// Bound is the largest proved lower bound (at least LB_load).
	Bound   int64  `json:"bound"`
	BoundBy Source `json:"bound_by"`
	// Optimal: Footprint == Bound.
	Optimal bool `json:"optimal"`
}

// Table maps a problem's content hash to its entry.
type Table map[string]*Entry

//go:embed best.json
var shipped []byte

// Shipped returns the table committed with this package.
func Shipped() Table {
	t, err := Parse(shipped)
	if err != nil {
		panic("best: the shipped best.json is broken: " + err.Error())
	}
	return t
}

// Parse reads a table's JSON. Its errors are encoding/json's, or an
// *EntryError for an entry that contradicts itself.
func Parse(data []byte) (Table, error) {
	t := Table{}
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, err
	}
	for _, h := range slices.Sorted(maps.Keys(t)) {
		switch e := t[h]; {
		case e == nil:
			return nil, &EntryError{h, "want an object, got null"}
		case e.Footprint < e.Bound:
			return nil, &EntryError{h, fmt.Sprintf("footprint %d is below its bound %d", e.Footprint, e.Bound)}
		case e.Optimal != (e.Footprint == e.Bound):
			return nil, &EntryError{h, fmt.Sprintf("optimal is %v, but footprint %d and bound %d say %v", e.Optimal, e.Footprint, e.Bound, !e.Optimal)}
		}
	}
	return t, nil
}

// EntryError is an entry of a table that contradicts itself.
type EntryError struct {
	Hash, Msg string
}

func (e *EntryError) Error() string { return fmt.Sprintf("entry %q: %s", e.Hash, e.Msg) }

// Marshal writes the table as indented JSON, keys sorted.
func (t Table) Marshal() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	_ = enc.Encode(t) // a map of plain structs always encodes
	return b.Bytes()
}

// Hashes returns the table's keys ordered by workload name, then hash.
func (t Table) Hashes() []string {
	hs := slices.Collect(maps.Keys(t))
	slices.SortFunc(hs, func(a, b string) int {
		if t[a].Workload != t[b].Workload {
			if t[a].Workload < t[b].Workload {
				return -1
			}
			return 1
		}
		if a < b {
			return -1
		}
		return 1
	})
	return hs
}

// Change is one improvement an update made.
type Change struct {
	Hash, Workload string
	// What is "footprint" or "bound"; Old is 0 for a new entry.
	What     string
	Old, New int64
	By       Source
}

// Update improves t with the records of one sweep, made by membench at rev
// on date. Only strategy records of status ok count. It returns what
// changed, or an error when a bound would exceed a validated footprint
// (one of the two is wrong; the table is left as it was).
func (t Table) Update(recs []results.Record, rev, date string) ([]Change, error) {
	next := Table{}
	for h, e := range t {
		c := *e
		next[h] = &c
	}
	var changes []Change
	for _, r := range recs {
		if r.Kind != results.KindStrategy || r.Status != results.StatusOK || r.Hash == "" {
			continue
		}
		src := Source{Subject: r.Subject, Revision: rev, Date: date}
		e, ok := next[r.Hash]
		if !ok {
			e = &Entry{Workload: r.Workload, N: r.N, LBLoad: r.LBLoad, Footprint: r.Footprint, FootprintBy: src,
				Bound: r.LBLoad, BoundBy: Source{Subject: "LB_load", Revision: rev, Date: date}}
			next[r.Hash] = e
			changes = append(changes, Change{r.Hash, r.Workload, "footprint", 0, r.Footprint, src})
		}
		e.Workload, e.N, e.LBLoad = r.Workload, r.N, r.LBLoad
		if r.Footprint < e.Footprint {
			changes = append(changes, Change{r.Hash, r.Workload, "footprint", e.Footprint, r.Footprint, src})
			e.Footprint, e.FootprintBy = r.Footprint, src
		}
		if r.Bound > e.Bound {
			changes = append(changes, Change{r.Hash, r.Workload, "bound", e.Bound, r.Bound, src})
			e.Bound, e.BoundBy = r.Bound, src
		}
		if e.Bound > e.Footprint {
			return nil, fmt.Errorf("%s (hash %s): bound %d (%s) exceeds the validated footprint %d (%s)",
				r.Workload, r.Hash, e.Bound, e.BoundBy.Subject, e.Footprint, e.FootprintBy.Subject)
		}
		e.Optimal = e.Footprint == e.Bound
	}
	clear(t)
	maps.Copy(t, next)
	return changes, nil
}

// Known returns t as reports take it (results.BestTable): the footprint
// and bound of each problem by content hash.
func (t Table) Known() results.BestTable {
	out := make(results.BestTable, len(t))
	for h, e := range t {
		out[h] = results.Best{Footprint: e.Footprint, Bound: e.Bound}
	}
	return out
}

// Known returns the shipped table as reports take it: the harness and
// compare pass it to summary.md, results.txt and the figures.
func Known() results.BestTable { return shippedKnown() }

var shippedKnown = sync.OnceValue(func() results.BestTable { return Shipped().Known() })
