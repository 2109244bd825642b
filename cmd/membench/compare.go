package main

import (
	"context"
	"fmt"
	"path/filepath"

	"membench/allocators"
	"membench/harness"
	"membench/results"
	"membench/results/best"
	"membench/strategies"
)

func init() {
	register(&command{
		name:    "compare",
		usage:   "--baseline SPEC --candidate SPEC [DIR | run flags]",
		summary: "Compare two strategies or allocators: footprint ratio per workload, geomean, wins/ties/losses, time significance.",
		run:     runCompare,
	})
}

func runCompare(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, commands["compare"])
	base := fs.String("baseline", "", "baseline `SPEC`")
	cand := fs.String("candidate", "", "candidate `SPEC`")
	var f sweepFlags
	f.add(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *base == "" || *cand == "" {
		return badUsage("compare: --baseline and --candidate are required")
	}
	if *base == *cand {
		return badUsage("compare: baseline and candidate are the same spec")
	}
	var recs []results.Record
	switch fs.NArg() {
	case 1:
		if len(f.strategies)+len(f.allocators)+len(f.workloads) > 0 || f.config != "" {
			return badUsage("compare: give either a results DIR or run flags, not both")
		}
		var err error
		recs, _, err = results.ReadFile(filepath.Join(fs.Arg(0), "results.jsonl"))
		if err != nil {
			return usageErr{fmt.Errorf("compare: %w", err)}
		}
	case 0:
		var err error
		if recs, err = compareSweep(ctx, e, &f, *base, *cand); err != nil {
			return err
		}
	default:
		return badUsage("compare: want at most one results DIR")
	}
	c, err := results.Compare(recs, *base, *cand, best.Known())
	if err != nil {
		return err
	}
	return c.Write(e.stdout)
}

// compareSweep runs a sweep of the two subjects, or reuses a complete one
// of the same config in the output folder, and returns its records.
func compareSweep(ctx context.Context, e *env, f *sweepFlags, base, cand string) ([]results.Record, error) {
	f.strategies, f.allocators = nil, nil
	var recs []results.Record // one per subject, to check their kinds
	for _, s := range []string{base, cand} {
		if _, err := strategies.Lookup(s); err == nil {
			f.strategies = append(f.strategies, s)
			recs = append(recs, results.Record{Subject: s, Kind: results.KindStrategy})
		} else if _, err2 := allocators.Lookup(s); err2 == nil {
			f.allocators = append(f.allocators, s)
			recs = append(recs, results.Record{Subject: s, Kind: results.KindAllocator})
		} else {
			return nil, usageErr{fmt.Errorf("compare: %q is neither a strategy (%v) nor an allocator (%v)", s, err, err2)}
		}
	}
	if err := results.CheckKinds(recs, base, cand); err != nil {
		return nil, err
	}
	if f.out == "" {
		f.out = filepath.Join("out", "compare-"+results.Slug(base)+"-vs-"+results.Slug(cand))
	}
	o, err := f.options(e)
	if err != nil {
		return nil, err
	}
	if !o.Force {
		prior, err := harness.Inspect(o)
		if err != nil {
			return nil, err
		}
		switch {
		case prior != nil && !prior.Same:
			return nil, badUsage("compare: %s holds a sweep of another config: choose another --out, or pass --force to replace it", o.Out)
		case prior != nil && prior.Complete:
			fmt.Fprintf(e.stderr, "membench: reusing %s (same config, complete)\n", o.Out)
			fmt.Fprintf(e.stdout, "sweep in %s\n\n", o.Out)
			return prior.Records, nil
		case prior != nil && prior.Same:
			fmt.Fprintf(e.stderr, "membench: resuming %s (same config, %d of %d cells done)\n", o.Out, prior.Done, prior.Cells)
			o.Resume = true
		}
	}
	out, err := harness.Run(ctx, o)
	if out == nil {
		return nil, err
	}
	if err != nil {
		fmt.Fprintln(e.stderr, "membench:", err)
	}
	fmt.Fprintf(e.stdout, "sweep in %s\n\n", out.Dir)
	return out.Records, nil
}
