package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"
	"time"

	"membench/results"
	"membench/results/best"
	"membench/workloads"
)

func init() {
	register(&command{
		name:    "best",
		usage:   "[--table FILE] [show | update DIR...]",
		summary: "Show the best-known footprints and proved bounds, or improve them from sweep folders.",
		run:     runBest,
	})
}

// defaultBestTable is the table's place in the repository.
const defaultBestTable = "results/best/best.json"

func runBest(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, commands["best"])
	table := fs.String("table", defaultBestTable, "the best-known table `FILE`")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	verb := "show"
	if fs.NArg() > 0 {
		verb = fs.Arg(0)
	}
	t, err := readBest(*table)
	if err != nil {
		return err
	}
	switch {
	case verb == "show" && fs.NArg() <= 1:
		return showBest(e, t)
	case verb == "update" && fs.NArg() >= 2:
		return updateBest(e, t, *table, fs.Args()[1:])
	}
	return badUsage("best: want `show` or `update DIR...`")
}

// readBest reads the table at path; a missing file is an empty table.
func readBest(path string) (best.Table, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return best.Table{}, nil
	}
	if err != nil {
		return nil, err
	}
	t, err := best.Parse(data)
	var ee *best.EntryError
	switch {
	case errors.As(err, &ee):
		// On the line of the entry's key.
		line := 0
		if i := bytes.Index(data, []byte(strconv.Quote(ee.Hash)+":")); i >= 0 {
			line = workloads.LineAt(data, int64(i))
		}
		return nil, &workloads.InputError{File: path, Line: line, Msg: "not a best-known table: " + ee.Error()}
	case err != nil:
		return nil, workloads.JSONError(path, data, err)
	}
	return t, nil
}

func showBest(e *env, t best.Table) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\tn\tLB_load\tbest\tbound\tbest/LB\toptimal\tbest by")
	for _, h := range t.Hashes() {
		en := t[h]
		opt := ""
		if en.Optimal {
			opt = "yes"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.4f\t%s\t%s\n", en.Workload, en.N, en.LBLoad, en.Footprint, en.Bound,
			float64(en.Footprint)/float64(max(en.LBLoad, 1)), opt, en.FootprintBy.Subject)
	}
	return tw.Flush()
}

// sweepManifest is the part of a sweep's manifest.json an update needs.
type sweepManifest struct {
	GitRevision string    `json:"git_revision"`
	Start       time.Time `json:"start"`
}

func updateBest(e *env, t best.Table, path string, dirs []string) error {
	for _, d := range dirs {
		mpath := filepath.Join(d, "manifest.json")
		data, err := os.ReadFile(mpath)
		if err != nil {
			return &workloads.InputError{File: mpath, Msg: "not a sweep folder: " + err.Error()}
		}
		var m sweepManifest
		if err := json.Unmarshal(data, &m); err != nil {
			return &workloads.InputError{File: mpath, Msg: "not a sweep manifest: " + err.Error()}
		}
		rpath := filepath.Join(d, "results.jsonl")
		recs, _, err := results.ReadFile(rpath)
		var ie *workloads.InputError
		if err != nil && !errors.As(err, &ie) {
			err = &workloads.InputError{File: rpath, Msg: "not a sweep folder: " + err.Error()}
		}
		if err != nil {
			return err
		}
		changes, err := t.Update(recs, m.GitRevision, m.Start.UTC().Format(time.DateOnly))
		if err != nil {
			return fmt.Errorf("best: %s: %w", d, err)
		}
		for _, c := range changes {
			fmt.Fprintf(e.stdout, "%s: %s %d -> %d (%s)\n", c.Workload, c.What, c.Old, c.New, c.By.Subject)
		}
	}
	if err := results.WriteFileAtomic(path, t.Marshal()); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: %d problems\n", path, len(t))
	return nil
}
