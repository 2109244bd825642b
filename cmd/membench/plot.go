package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"membench/harness"
)

func init() {
	register(&command{
		name:    "plot",
		usage:   "[--kind footprint|scaling|layout|timeline|distribution] DIR",
		summary: "Regenerate a sweep's plots (DIR/plots/*.png) from its results.",
		run:     runPlot,
	})
}

func runPlot(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, commands["plot"])
	kind := fs.String("kind", "", "draw only this kind: "+strings.Join(harness.PlotKinds, ", ")+" (default all)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return badUsage("plot: want one sweep DIR")
	}
	if *kind != "" && !slices.Contains(harness.PlotKinds, *kind) {
		return badUsage("plot: unknown --kind %q (valid: %s)", *kind, strings.Join(harness.PlotKinds, ", "))
	}
	files, err := harness.Replot(ctx, fs.Arg(0), *kind)
	for _, f := range files {
		fmt.Fprintf(e.stdout, "wrote %s\n", f)
	}
	if err == nil && len(files) == 0 {
		what := "figure"
		if *kind != "" {
			what = *kind + " figure"
		}
		return fmt.Errorf("plot: the results in %s support no %s", fs.Arg(0), what)
	}
	return err
}
