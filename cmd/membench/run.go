package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"membench/harness"
	"membench/workloads"
)

// command is one subcommand. Each lives in its own file and adds itself to
// commands from init().
type command struct {
	name    string
	usage   string // the synopsis after "membench NAME"
	summary string
	run     func(ctx context.Context, env *env, args []string) error
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("duplicate command " + c.name)
	}
	commands[c.name] = c
}

// env is what a subcommand may touch.
type env struct {
	stdout, stderr io.Writer
}

// load is loadMax under the default --max-input.
func (e *env) load(spec string) (*workloads.Workload, error) { return e.loadMax(spec, "") }

// maxInputFlag adds --max-input, the most bytes a workload file may hold
// or expand to, to a command that loads one.
func maxInputFlag(fs *pflag.FlagSet) *string {
	return fs.String("max-input", "", "refuse a workload file that holds, or expands to when gzip-compressed, more than `SIZE` bytes (K/M/G suffixes; default 1G)")
}

// loadMax loads a workload under a --max-input value ("": the default)
// and prints what its reader skipped to stderr, as
// "membench: warning: SPEC: ...".
func (e *env) loadMax(spec, maxInput string) (*workloads.Workload, error) {
	var o workloads.LoadOptions
	if maxInput != "" {
		n, err := workloads.ParseBytes(maxInput)
		if err != nil || n < 1 {
			return nil, badUsage("--max-input %s: want a positive byte size such as 64M or 16G", workloads.Echo(maxInput))
		}
		o.MaxInput = n
	}
	w, err := workloads.LoadWith(spec, o)
	if err != nil {
		return nil, err
	}
	for _, m := range w.Warnings() {
		fmt.Fprintf(e.stderr, "membench: warning: %s: %s\n", spec, m)
	}
	return w, nil
}

// usageErr marks bad usage or bad input: exit status 2.
type usageErr struct{ err error }

func (e usageErr) Error() string { return e.err.Error() }
func (e usageErr) Unwrap() error { return e.err }

// badUsage formats a usage error.
func badUsage(format string, args ...any) error {
	return usageErr{fmt.Errorf(format, args...)}
}

// exitStatus is an exit status whose message was already printed.
type exitStatus struct{ code int }

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// errHelp is returned when the message was already printed (--help).
var errHelp = errors.New("help requested")

// run is the whole program: it parses args and runs one subcommand.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if harness.IsWorker() {
		if code := harness.WorkerMain(); code != 0 {
			return exitStatus{code}
		}
		return nil
	}
	e := &env{stdout: stdout, stderr: stderr}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(stdout)
		if len(args) == 0 {
			return badUsage("no command given")
		}
		return nil
	}
	c, ok := commands[args[0]]
	if !ok {
		return badUsage("unknown command %q (valid: %s)", args[0], strings.Join(commandNames(), ", "))
	}
	err := c.run(ctx, e, args[1:])
	if errors.Is(err, errHelp) {
		return nil
	}
	return err
}

func commandNames() []string {
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "membench benchmarks tensor memory planners and allocators.")
	fmt.Fprintln(w, "\nUsage:")
	for _, n := range commandNames() {
		c := commands[n]
		fmt.Fprintf(w, "  membench %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'membench COMMAND --help' for a command's flags.")
}

// newFlags returns a flag set for a subcommand that reports errors instead
// of exiting and prints --help to e.stdout.
func newFlags(e *env, c *command) *pflag.FlagSet {
	fs := pflag.NewFlagSet(c.name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(e.stdout, "Usage: membench %s %s\n\n%s\n\nFlags:\n", c.name, c.usage, c.summary)
		fs.SetOutput(e.stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// parseFlags parses args, turning --help into errHelp and flag errors into
// usage errors. pflag itself prints the usage on --help.
func parseFlags(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return errHelp
		}
		return usageErr{fmt.Errorf("%s: %w", fs.Name(), err)}
	}
	return nil
}

// exitCode maps an error to the process exit status and prints it:
// 0 ok, 1 the work failed, 2 bad usage or bad input.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var es exitStatus
	if errors.As(err, &es) {
		return es.code
	}
	fmt.Fprintln(stderr, "membench:", err)
	if isUsage(err) {
		return 2
	}
	return 1
}

func isUsage(err error) bool {
	var ue usageErr
	var ie *workloads.InputError
	var we *workloads.UsageError
	return errors.As(err, &ue) || errors.As(err, &ie) || errors.As(err, &we)
}
