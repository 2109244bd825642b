package strategies

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"membench/workloads"
)

// External planners: `exec:PATH` runs PATH with the problem as MiniMalloc
// CSV on stdin (buffer i has id i) and reads `id,offset` lines from its
// stdout, so planners written in any language take part unmodified. A
// header line is optional; a CSV with `id` and `offset` among other
// columns (as MiniMalloc's solver writes) is read by those columns. The
// CSV has no place for the problem's capacity, so it is passed in the
// environment as MEMBENCH_CAPACITY (bytes; absent when there is none), for
// wrappers of solvers that need one, such as MiniMalloc's --capacity.

func init() { SetExecHook(newExec) }

// execWaitDelay bounds the wait for a killed planner's pipes: a grandchild
// that escaped the kill must not hold the plan open.
const execWaitDelay = time.Second

// execStderrMax bounds the planner's stderr quoted in an error.
const execStderrMax = 2000

type execStrategy struct {
	spec, path string
}

func newExec(spec string) (Strategy, error) {
	path := strings.TrimPrefix(spec, "exec:")
	if path == "" {
		return nil, workloads.Usagef("exec strategy: want exec:PATH, got %q", spec)
	}
	if _, err := exec.LookPath(path); err != nil {
		return nil, workloads.Usagef("exec strategy %q: %v", spec, err)
	}
	return &execStrategy{spec: spec, path: path}, nil
}

func (s *execStrategy) Name() string { return s.spec }

func (s *execStrategy) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	in := &workloads.Problem{Name: p.Name, Alignment: p.Alignment, Capacity: p.Capacity,
		Buffers: make([]workloads.Buffer, len(p.Buffers))}
	for i, b := range p.Buffers {
		b.ID = i
		in.Buffers[i] = b
	}
	var stdin, stdout, stderr bytes.Buffer
	if err := workloads.WriteMiniMalloc(&stdin, in); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, s.path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = &stdin, &stdout, &stderr
	cmd.WaitDelay = execWaitDelay
	if p.Capacity > 0 {
		cmd.Env = append(os.Environ(), "MEMBENCH_CAPACITY="+strconv.FormatInt(p.Capacity, 10))
	}
	killGroup(cmd)
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := fmt.Sprintf("%s: %v", s.spec, err)
		if e := strings.TrimSpace(stderr.String()); e != "" {
			if len(e) > execStderrMax {
				e = "..." + e[len(e)-execStderrMax:]
			}
			msg += ": " + e
		}
		return nil, errors.New(msg)
	}
	offsets, err := ReadOffsets(&stdout, s.spec+" output", in.Buffers)
	if err != nil {
		// The planner failed, not the user's input: a plain error (exit
		// status 1), worded like an input error.
		return nil, errors.New(err.Error())
	}
	return &Plan{Offsets: offsets, Footprint: Footprint(p.Buffers, offsets)}, nil
}
