// Command samecells checks that two sweep folders hold the same cells with
// the same results, timings aside: CI uses it to check that a sharded sweep,
// merged, equals the unsharded run.
//
//	go run ./scripts/slurm/samecells DIR_A DIR_B
//
// It exits 0 when they agree, 1 listing the differences when they do not,
// and 2 when a folder cannot be read.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	// Linked as in every binary, though samecells reads records only.
	_ "membench/plugins"
	"membench/results"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: samecells DIR_A DIR_B")
		os.Exit(2)
	}
	var recs [2][]results.Record
	for i, dir := range os.Args[1:] {
		rs, _, err := results.ReadFile(filepath.Join(dir, "results.jsonl"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "samecells:", err)
			os.Exit(2)
		}
		recs[i] = rs
	}
	diffs := compare(recs[0], recs[1])
	for _, d := range diffs {
		fmt.Fprintln(os.Stderr, "samecells:", d)
	}
	if len(diffs) > 0 {
		os.Exit(1)
	}
	fmt.Printf("%s and %s: the same %d cells\n", os.Args[1], os.Args[2], len(recs[0]))
}

// compare lists how b differs from a: cells only in one, cells in another
// order, and cells whose results differ in anything but the timings.
func compare(a, b []results.Record) []string {
	var diffs []string
	inB := map[results.Key]results.Record{}
	for _, r := range b {
		inB[r.Key()] = r
	}
	inA := map[results.Key]bool{}
	for i, r := range a {
		inA[r.Key()] = true
		other, ok := inB[r.Key()]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("cell %s only in the first", r.Key()))
		case untimed(r) != untimed(other):
			diffs = append(diffs, fmt.Sprintf("cell %s differs:\n  %s\n  %s", r.Key(), untimed(r), untimed(other)))
		case i >= len(b) || b[i].Key() != r.Key():
			diffs = append(diffs, fmt.Sprintf("cell %s is not at position %d in the second", r.Key(), i))
		}
	}
	for _, r := range b {
		if !inA[r.Key()] {
			diffs = append(diffs, fmt.Sprintf("cell %s only in the second", r.Key()))
		}
	}
	return diffs
}

// untimed is r in JSON without its timings, which differ from run to run.
func untimed(r results.Record) string {
	r.Iters, r.TimesNs = 0, nil
	b, err := json.Marshal(r)
	if err != nil {
		panic(err) // a Record always marshals
	}
	return string(b)
}
