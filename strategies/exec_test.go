package strategies_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"membench/internal/proctest"
	"membench/strategies"
	"membench/workloads"
)

// execProblem has ids that are not positions, so that the test sees the
// planner's ids (positions) mapped back to the caller's order.
func execProblem(align int64) *workloads.Problem {
	return &workloads.Problem{Name: "exec-test", Alignment: align, Buffers: []workloads.Buffer{
		{ID: 7, Size: 32, First: 0, Last: 1},
		{ID: 3, Size: 8, First: 1, Last: 2},
		{ID: 5, Size: 16, First: 2, Last: 2},
	}}
}

func lookupExec(t *testing.T, script string) strategies.Strategy {
	t.Helper()
	s, err := strategies.Lookup("exec:testdata/exec/" + script)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestExecPlans(t *testing.T) {
	for _, tc := range []struct {
		script  string
		align   int64
		offsets []int64
		fp      int64
	}{
		{"backtoback.sh", 0, []int64{0, 32, 40}, 56},
		{"backtoback.sh", 64, []int64{0, 64, 128}, 144},
		{"minimalloc.sh", 0, []int64{0, 32, 40}, 56},
	} {
		s := lookupExec(t, tc.script)
		if s.Name() != "exec:testdata/exec/"+tc.script {
			t.Errorf("Name() = %q", s.Name())
		}
		p := execProblem(tc.align)
		plan, err := s.Plan(context.Background(), p)
		if err != nil {
			t.Errorf("%s align %d: %v", tc.script, tc.align, err)
			continue
		}
		if !slices.Equal(plan.Offsets, tc.offsets) || plan.Footprint != tc.fp || plan.IsObjects() {
			t.Errorf("%s align %d: offsets %v footprint %d objects %v; want %v, %d, none",
				tc.script, tc.align, plan.Offsets, plan.Footprint, plan.ObjectIDs, tc.offsets, tc.fp)
		}
		if err := strategies.Validate(p, plan); err != nil {
			t.Errorf("%s align %d: %v", tc.script, tc.align, err)
		}
	}
	// No buffers: the planner answers with a header alone.
	plan, err := lookupExec(t, "backtoback.sh").Plan(context.Background(), &workloads.Problem{})
	if err != nil || len(plan.Offsets) != 0 || plan.Footprint != 0 {
		t.Errorf("empty problem: %+v, %v", plan, err)
	}
}

// TestExecErrors checks the exact error of each kind of broken planner.
// They are plain errors (the planner failed, exit status 1), not input
// errors; output that is no plan is an invalid plan.
func TestExecErrors(t *testing.T) {
	for _, tc := range []struct {
		script  string
		align   int64
		want    string
		invalid bool
	}{
		{"duplicate.sh", 0, "exec:testdata/exec/duplicate.sh output:4: id 0 repeats line 1", true},
		{"missing.sh", 0, "exec:testdata/exec/missing.sh output: no offset for buffer id 2 (1 of 3 buffers missing; want one line per buffer)", true},
		{"garbage.sh", 0, `exec:testdata/exec/garbage.sh output:2: offset "lots": want a non-negative integer`, true},
		// Output without end is cut at the cap, and the planner killed.
		{"flood.sh", 0, "exec:testdata/exec/flood.sh output: more than 1049344 bytes for 3 buffers; want one id,offset line per buffer", true},
		// fail.sh echoes its capacity and stdin: the MiniMalloc CSV it was
		// given, ids being positions and upper = last + 1.
		{"fail.sh", 0, "exec:testdata/exec/fail.sh: exit status 3: capacity none\nid,lower,upper,size\n0,0,2,32\n1,1,3,8\n2,2,3,16", false},
		{"fail.sh", 128, "exec:testdata/exec/fail.sh: exit status 3: capacity 4096\nid,lower,upper,size,alignment\n0,0,2,32,128\n1,1,3,8,128\n2,2,3,16,128", false},
	} {
		p := execProblem(tc.align)
		if tc.align > 0 {
			p.Capacity = 4096
		}
		plan, err := lookupExec(t, tc.script).Plan(context.Background(), p)
		if err == nil {
			t.Errorf("%s: got plan %+v, want error %q", tc.script, plan, tc.want)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("%s: error\n%q\nwant\n%q", tc.script, err, tc.want)
		}
		var ie *workloads.InputError
		if errors.As(err, &ie) {
			t.Errorf("%s: error is an input error (exit 2); a failing planner is exit 1", tc.script)
		}
		if got := errors.Is(err, strategies.ErrInvalidPlan); got != tc.invalid {
			t.Errorf("%s: errors.Is(err, ErrInvalidPlan) = %v, want %v", tc.script, got, tc.invalid)
		}
	}
}

// TestExecPlansAreValidated: an exec planner's offsets go through Validate
// like any plan.
func TestExecPlansAreValidated(t *testing.T) {
	p := execProblem(0)
	plan, err := lookupExec(t, "overlap.sh").Plan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	err = strategies.Validate(p, plan)
	if !errors.Is(err, strategies.ErrInvalidPlan) || !strings.Contains(err.Error(), "overlap") {
		t.Errorf("Validate of an all-zero plan: %v, want an overlap", err)
	}
}

func TestExecLookupErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"exec:", `exec strategy: want exec:PATH [ARGS...], got "exec:"`},
		{"exec:  ", `exec strategy: want exec:PATH [ARGS...], got "exec:  "`},
		{`exec:testdata/exec/args.sh "two words`, `exec strategy "exec:testdata/exec/args.sh \"two words": unbalanced quotes`},
		{"exec:testdata/exec/args.sh x | sort", `exec strategy "exec:testdata/exec/args.sh x | sort": "| sort": shell operators are not run; put the pipeline in a script`},
		{"exec:testdata/exec/nope.sh", `exec strategy "exec:testdata/exec/nope.sh": exec: "testdata/exec/nope.sh": stat testdata/exec/nope.sh: no such file or directory`},
		{"exec:testdata/tflite/complex.csv", `exec strategy "exec:testdata/tflite/complex.csv": exec: "testdata/tflite/complex.csv": permission denied`},
	} {
		s, err := strategies.Lookup(tc.spec)
		var ue *workloads.UsageError
		if !errors.As(err, &ue) || err.Error() != tc.want {
			t.Errorf("Lookup(%q) = %v, %v; want usage error %q", tc.spec, s, err, tc.want)
		}
	}
}

// TestExecCancel: a planner whose child never answers is killed, child
// and all, when the context ends.
func TestExecCancel(t *testing.T) {
	s := lookupExec(t, "sleep.sh")
	mark := proctest.Mark(t, "MEMBENCH_EXEC_CANCEL_TEST")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := s.Plan(ctx, execProblem(0))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want context.DeadlineExceeded", err)
	}
	// sh and its sleep are gone once Plan returns: killed, not left
	// behind (on Linux, where processes can be listed).
	if left := proctest.Marked(mark); len(left) > 0 {
		t.Errorf("processes %v outlived the planner", left)
		for _, pid := range left {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestExecArgs: exec: takes a command with arguments, split like a
// shell's words.
func TestExecArgs(t *testing.T) {
	s, err := strategies.Lookup(`exec:testdata/exec/args.sh "two words" 8`)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.Plan(context.Background(), execProblem(0))
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{0, 40, 56}; !slices.Equal(plan.Offsets, want) {
		t.Errorf("offsets %v, want %v (sizes 32, 8, 16 with gaps of 8)", plan.Offsets, want)
	}
	// A command found in PATH, with its script as an argument.
	s, err = strategies.Lookup(`exec:sh 'testdata/exec/args.sh' two\ words 0`)
	if err != nil {
		t.Fatal(err)
	}
	if plan, err := s.Plan(context.Background(), execProblem(0)); err != nil || !slices.Equal(plan.Offsets, []int64{0, 32, 40}) {
		t.Errorf("sh args.sh: %v, %v", plan, err)
	}
}

// TestExecLeavesNoProcess: processes a planner starts that leave its
// process group (setsid, double forks) are killed when it ends, and when
// its context does.
func TestExecLeavesNoProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("descendants that leave the process group are caught on Linux only")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid command")
	}
	for _, hang := range []string{"answer", "hang"} {
		token := fmt.Sprintf("%d-%s", os.Getpid(), hang)
		s, err := strategies.Lookup("exec:testdata/exec/escape.sh " + token + " " + hang)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		plan, err := s.Plan(ctx, execProblem(0))
		cancel()
		if hang == "answer" && (err != nil || !slices.Equal(plan.Offsets, []int64{0, 32, 40})) {
			t.Errorf("%s: %v, %v", hang, plan, err)
		}
		if hang == "hang" && !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: err = %v, want the deadline", hang, err)
		}
		// The escaped processes held stdout open: they must be killed,
		// not waited for.
		if left := proctest.Marked("MEMBENCH_ESCAPE_TEST=" + token); len(left) > 0 {
			t.Errorf("%s: processes %v outlived the planner", hang, left)
			for _, pid := range left {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}
