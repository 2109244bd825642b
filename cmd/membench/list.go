package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"membench/allocators"
	"membench/strategies"
	"membench/workloads"
)

func init() {
	register(&command{
		name:    "list",
		usage:   "[strategies|allocators|workloads]",
		summary: "List the registered strategies, allocators and workloads with their parameters.",
		run:     runList,
	})
}

func runList(ctx context.Context, e *env, args []string) error {
	c := commands["list"]
	fs := newFlags(e, c)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	what := []string{"strategies", "allocators", "workloads"}
	switch fs.NArg() {
	case 0:
	case 1:
		what = []string{fs.Arg(0)}
	default:
		return badUsage("list: want at most one of strategies, allocators, workloads")
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for i, w := range what {
		if len(what) > 1 {
			if i > 0 {
				fmt.Fprintln(tw)
			}
			fmt.Fprintf(tw, "%s:\n", w)
		}
		switch w {
		case "strategies":
			for _, in := range strategies.All() {
				fmt.Fprintf(tw, "  %s\t%s\t%s\n", in.Name, in.Kind, in.Doc)
				listParams(tw, in.Params)
			}
			fmt.Fprintf(tw, "  exec:PATH\t%s\t%s\n", strategies.External, "external planner, exec:PATH [ARGS...] (split like shell words): MiniMalloc CSV on stdin, id,offset lines back")
		case "allocators":
			for _, in := range allocators.All() {
				fmt.Fprintf(tw, "  %s\t%s\n", in.Name, in.Doc)
				listParams(tw, in.Params)
			}
		case "workloads":
			for _, in := range workloads.All() {
				fmt.Fprintf(tw, "  %s\t%s\n", in.Name, in.Doc)
				listParams(tw, in.Params)
			}
		default:
			return badUsage("list: unknown kind %q (valid: strategies, allocators, workloads)", w)
		}
	}
	return tw.Flush()
}

func listParams(tw *tabwriter.Writer, params []workloads.ParamDoc) {
	for _, p := range params {
		doc := p.Doc
		if p.Default != "" {
			doc += " (default " + p.Default + ")"
		}
		fmt.Fprintf(tw, "    ?%s=\t\t%s\n", p.Name, strings.TrimSpace(doc))
	}
}
