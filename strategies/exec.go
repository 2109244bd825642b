package strategies

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mattn/go-shellwords"

	"membench/workloads"
)

// External planners: `exec:COMMAND [ARGS...]` runs COMMAND (a path, or a
// name looked up in PATH) with ARGS, split like a shell's words (quotes
// and backslashes; no variables, globs, pipes or redirections), with the
// problem as MiniMalloc CSV on stdin (buffer i has id i), and reads
// `id,offset` lines from its stdout, so planners written in any language
// take part unmodified: `exec:python3 planner.py --fast`. A header line
// is optional; a CSV with `id` and `offset` among other columns (as
// MiniMalloc's solver writes) is read by those columns. The CSV has no
// place for the problem's capacity, so it is passed in the environment as
// MEMBENCH_CAPACITY (bytes; absent when there is none), for wrappers of
// solvers that need one, such as MiniMalloc's --capacity.
//
// The planner runs in its own process group. When it ends, or its context
// does, the whole group is killed, and (on Linux, where membench is a
// child subreaper) so is every process it started that left the group.
// Its stdout is read up to outputCap bytes; output that is no plan (too
// long, too few lines, garbage) is an invalid plan (ErrInvalidPlan); a
// planner that exits non-zero is an error quoting its stderr's end.

// execDrainDelay bounds the wait for a planner's output once it and its
// descendants were killed: a process that escaped both must not hold the
// plan open.
const execDrainDelay = time.Second

// execStartRetries are the pauses before starting a planner again when
// there was no process to start it in.
var execStartRetries = []time.Duration{50 * time.Millisecond, 200 * time.Millisecond, time.Second}

// execStderrMax bounds the planner's stderr quoted in an error.
const execStderrMax = 2000

// outputCap bounds the bytes read from a planner's stdout for a problem of
// n buffers: 1 MiB for headers and comments, and 256 bytes a buffer, far
// more than an `id,offset` line (at most 40 bytes) or a MiniMalloc
// solution line needs.
func outputCap(n int) int { return 1<<20 + 256*n }

type execStrategy struct {
	spec string
	argv []string
}

func newExec(spec string) (Strategy, error) {
	line := strings.TrimPrefix(spec, "exec:")
	p := shellwords.NewParser()
	argv, err := p.Parse(line)
	if err != nil {
		return nil, workloads.Usagef("exec strategy %q: unbalanced quotes", spec)
	}
	if p.Position >= 0 {
		return nil, workloads.Usagef("exec strategy %q: %q: shell operators are not run; put the pipeline in a script", spec, line[p.Position:])
	}
	if len(argv) == 0 {
		return nil, workloads.Usagef("exec strategy: want exec:PATH [ARGS...], got %q", spec)
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		return nil, workloads.Usagef("exec strategy %q: %v", spec, err)
	}
	return &execStrategy{spec: spec, argv: argv}, nil
}

func (s *execStrategy) Name() string { return s.spec }

// invalidOutput is a planner's answer that is no plan: an invalid plan,
// worded as the reader's error.
type invalidOutput struct{ msg string }

func (e *invalidOutput) Error() string { return e.msg }
func (e *invalidOutput) Unwrap() error { return ErrInvalidPlan }

func (s *execStrategy) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	in := &workloads.Problem{Name: p.Name, Alignment: p.Alignment, Capacity: p.Capacity,
		Buffers: make([]workloads.Buffer, len(p.Buffers))}
	for i, b := range p.Buffers {
		b.ID = i
		in.Buffers[i] = b
	}
	var csv bytes.Buffer
	if err := workloads.WriteMiniMalloc(&csv, in); err != nil {
		return nil, err
	}
	var stdout *capped
	var stderr *tail
	var run *piped
	var err error
	for try := 0; ; try++ {
		cmd := exec.CommandContext(ctx, s.argv[0], s.argv[1:]...)
		cmd.Env = os.Environ()
		if p.Capacity > 0 {
			cmd.Env = append(cmd.Env, "MEMBENCH_CAPACITY="+strconv.FormatInt(p.Capacity, 10))
		}
		stdout = &capped{max: outputCap(len(p.Buffers))}
		stderr = &tail{max: execStderrMax}
		run, err = startPiped(cmd, csv.Bytes(), stdout, stderr)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EAGAIN) {
			return nil, fmt.Errorf("%s: %v", s.spec, err)
		}
		// Out of processes (ulimit -u), perhaps for a moment: the
		// processes of a planner just killed take a while to go.
		if try == len(execStartRetries) {
			return nil, fmt.Errorf("%s: %v (the process limit, ulimit -u, is reached; tried %d times)", s.spec, err, try+1)
		}
		select {
		case <-time.After(execStartRetries[try]):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	err = run.wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if stdout.exceeded {
		return nil, &invalidOutput{fmt.Sprintf("%s output: more than %d bytes for %d buffers; want one id,offset line per buffer", s.spec, stdout.max, len(p.Buffers))}
	}
	if err != nil {
		msg := fmt.Sprintf("%s: %v", s.spec, err)
		if e := stderr.String(); e != "" {
			msg += ": " + e
		}
		return nil, errors.New(msg)
	}
	offsets, err := ReadOffsets(&stdout.buf, s.spec+" output", in.Buffers)
	if err != nil {
		// The planner failed, not the user's input: an invalid plan
		// (exit status 1), worded like an input error.
		return nil, &invalidOutput{err.Error()}
	}
	return &Plan{Offsets: offsets, Footprint: Footprint(p.Buffers, offsets)}, nil
}

// piped is a started planner and the goroutines that feed and read it.
type piped struct {
	cmd     *exec.Cmd
	cleanup func()
	readers sync.WaitGroup
	closers []*os.File
}

// startPiped starts cmd with stdin fed from in and stdout and stderr read
// into out and errOut, through pipes of our own rather than os/exec's, so
// that waiting for the planner does not wait for a descendant holding
// them open.
func startPiped(cmd *exec.Cmd, in []byte, out, errOut io.Writer) (*piped, error) {
	r := &piped{cmd: cmd}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		for _, f := range []*os.File{inR, inW, outR, outW} {
			f.Close()
		}
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	r.cleanup = contain(cmd)
	if c, ok := out.(*capped); ok {
		c.over = r.cleanup // too much output: kill it all now
	}
	err = start(cmd)
	// The child has its copies; ours would keep the pipes open.
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	go func() {
		// A planner that exits without reading its input makes this
		// fail; its exit status says what happened.
		inW.Write(in)
		inW.Close()
	}()
	r.closers = []*os.File{inW, outR, errR}
	for _, p := range []struct {
		r *os.File
		w io.Writer
	}{{outR, out}, {errR, errOut}} {
		r.readers.Add(1)
		go func() {
			defer r.readers.Done()
			io.Copy(p.w, p.r)
		}()
	}
	return r, nil
}

// wait waits for the planner to exit, kills what it left behind, and
// waits (at most execDrainDelay) for the rest of its output.
func (r *piped) wait() error {
	err := r.cmd.Wait()
	r.cleanup()
	done := make(chan struct{})
	go func() {
		r.readers.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(execDrainDelay):
	}
	for _, f := range r.closers {
		f.Close()
	}
	<-done
	return err
}

// capped keeps what is written to it up to max bytes; beyond, it calls
// over once and drops the rest.
type capped struct {
	buf      bytes.Buffer
	max      int
	exceeded bool
	over     func()
}

func (c *capped) Write(p []byte) (int, error) {
	if c.exceeded {
		return len(p), nil
	}
	if c.buf.Len()+len(p) > c.max {
		c.exceeded = true
		if c.over != nil {
			c.over()
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}

// tail keeps the last max bytes written to it.
type tail struct {
	buf       []byte
	max       int
	truncated bool
}

func (t *tail) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
		t.truncated = true
	}
	return len(p), nil
}

func (t *tail) String() string {
	s := strings.TrimSpace(string(t.buf))
	if t.truncated && s != "" {
		s = "..." + s
	}
	return s
}
