package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
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

// listArgs are list's arguments and what each lists.
var listArgs = [][2]string{
	{"strategies", "the static planners and their parameters: SPECs of plan --strategy and run --strategies"},
	{"allocators", "the dynamic allocators and their parameters: SPECs of replay --allocator and run --allocators"},
	{"workloads", "the registered workloads and their parameters: WORKLOAD, and specs of run --workloads"},
}

func runList(ctx context.Context, e *env, args []string) error {
	c := commands["list"]
	fs := newFlags(e, c)
	fs.Usage = func() { // list has arguments and no flags
		fmt.Fprintf(e.stdout, "Usage: membench %s %s\n\n%s\n\nArguments:\n", c.name, c.usage, c.summary)
		for _, a := range listArgs {
			fmt.Fprintf(e.stdout, "  %-11s %s\n", a[0], a[1])
		}
		fmt.Fprintln(e.stdout, "\nWith no argument, list all three.")
	}
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
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	for i, w := range what {
		if len(what) > 1 {
			if i > 0 {
				fmt.Fprintln(tw)
			}
			fmt.Fprintf(tw, "%s:\n", w)
		}
		switch w {
		case "strategies":
			// Grouped by runtime (DESIGN §9); a line with the tabs of an
			// entry keeps the columns aligned across groups.
			for _, g := range strategies.ByRuntime() {
				fmt.Fprintf(tw, "  [%s]\t\t\n", g.Runtime)
				for _, in := range g.Infos {
					fmt.Fprintf(tw, "  %s\t%s\t%s\n", in.Name, in.Kind, in.Doc)
					if len(in.SizeTypes) > 0 {
						var names []string
						for _, t := range strategies.SizeTypesOf(in) {
							names = append(names, t.String())
						}
						fmt.Fprintf(tw, "    sizes\t\tthe size types it plans (DESIGN §17): %s\n", strings.Join(names, ", "))
					}
					if in.Arena != "" {
						fmt.Fprintf(tw, "    arena\t\tthe runtime's arena, reported beside the footprint: %s\n", in.Arena)
					}
					listParams(tw, in.Params)
				}
			}
			fmt.Fprintf(tw, "  [external]\t\t\n")
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
	if err := tw.Flush(); err != nil {
		return err
	}
	// The group headers share the entries' columns, so tabwriter pads them.
	for line := range strings.Lines(buf.String()) {
		if _, err := io.WriteString(e.stdout, strings.TrimRight(line, " \n")+"\n"); err != nil {
			return err
		}
	}
	return nil
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
