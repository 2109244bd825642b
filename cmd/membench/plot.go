package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"membench/harness"
	"membench/results/best"
	"membench/results/plot"
)

func init() {
	register(&command{
		name: "plot",
		usage: "[--kind footprint|runtime|scaling|layout|timeline|distribution] [--workload W] [--subject S]\n" +
			"    [--format png,svg,pdf] [--size column|page] DIR",
		summary: "Regenerate a sweep's figures (DIR/plots/) from its results.",
		run:     runPlot,
	})
}

func runPlot(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, commands["plot"])
	kind := fs.String("kind", "", "draw only this kind: "+strings.Join(plot.Kinds, ", ")+" (default all)")
	workload := fs.String("workload", "", "with --kind layout|timeline: the workload drawn (as recorded)")
	subject := fs.String("subject", "", "with --kind layout|timeline: the strategy or allocator drawn (as recorded)")
	formats := fs.String("format", "png", "comma-separated file formats: "+strings.Join(plot.Formats, ", "))
	size := fs.String("size", plot.Page.Name, `figure size: "column" (3.5 in wide, one column of a two-column paper) or "page" (7 in)`)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return badUsage("plot: want one sweep DIR")
	}
	if *kind != "" && !slices.Contains(plot.Kinds, *kind) {
		return badUsage("plot: unknown --kind %q (valid: %s)", *kind, strings.Join(plot.Kinds, ", "))
	}
	if (*workload != "" || *subject != "") && *kind != "layout" && *kind != "timeline" {
		return badUsage("plot: --workload and --subject choose a layout or timeline: add --kind layout or --kind timeline")
	}
	o := plot.Options{Kind: *kind, Workload: *workload, Subject: *subject, Best: best.Known()}
	var err error
	if o.Formats, err = plot.ParseFormats(*formats); err != nil {
		return badUsage("plot: --format: %v", err)
	}
	var ok bool
	if o.Size, ok = plot.SizeNamed(*size); !ok {
		return badUsage("plot: unknown --size %q (valid: column, page)", *size)
	}
	files, err := harness.Replot(ctx, fs.Arg(0), o)
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
