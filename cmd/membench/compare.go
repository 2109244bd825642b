package main

import (
	"context"
	"fmt"
	"path/filepath"

	"membench/allocators"
	"membench/harness"
	"membench/results"
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
		// A fresh sweep of the two subjects.
		f.strategies, f.allocators = nil, nil
		for _, s := range []string{*base, *cand} {
			if _, err := strategies.Lookup(s); err == nil {
				f.strategies = append(f.strategies, s)
			} else if _, err2 := allocators.Lookup(s); err2 == nil {
				f.allocators = append(f.allocators, s)
			} else {
				return usageErr{fmt.Errorf("compare: %q is neither a strategy (%v) nor an allocator (%v)", s, err, err2)}
			}
		}
		if f.out == "" {
			f.out = filepath.Join("out", "compare-"+results.Slug(*base)+"-vs-"+results.Slug(*cand))
		}
		f.force = !f.resume
		o, err := f.options(e)
		if err != nil {
			return err
		}
		out, err := harness.Run(ctx, o)
		if out == nil {
			return err
		}
		if err != nil {
			fmt.Fprintln(e.stderr, "membench:", err)
		}
		recs = out.Records
		fmt.Fprintf(e.stdout, "sweep in %s\n\n", out.Dir)
	default:
		return badUsage("compare: want at most one results DIR")
	}
	c, err := results.Compare(recs, *base, *cand)
	if err != nil {
		return err
	}
	return c.Write(e.stdout)
}
