package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"membench/results"
	"membench/workloads"
)

// TestExecSweep runs external planners (DESIGN §3) in a sweep: they are
// planned in workers, validated and recorded like built-in strategies.
func TestExecSweep(t *testing.T) {
	const dir = "exec:../strategies/testdata/exec/"
	c := tinyConfig(t, "naive", dir+"backtoback.sh", dir+"hygiene.sh", dir+"overlap.sh", dir+"fail.sh", dir+"missing.sh", dir+"traceback.sh")
	c.Repeats = 1
	c.Workloads = entries("synthetic/chain?n=12", "synthetic/random-dag?n=30")
	out, err := Run(context.Background(), Options{Config: c, Out: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "8 of 14 cells failed") {
		t.Fatalf("err = %v, want 8 of 14 cells failed", err)
	}
	// The failure list shows the line of an error that says most: a
	// traceback's last.
	if want := "synthetic/chain?n=12&seed=0 × " + dir + "traceback.sh #0: error: ValueError: no room for buffer 3\n"; !strings.Contains(err.Error(), want) {
		t.Errorf("failure list:\n%v\nwant a line %q", err, want)
	}
	recs := keysOnce(t, out.Records, 14)
	for k, r := range recs {
		naive := recs[results.Key{Workload: k.Workload, Subject: "naive"}]
		switch strings.TrimPrefix(r.Subject, dir) {
		// hygiene.sh also checks that the worker's marker and record pipe
		// do not reach the planner.
		case "backtoback.sh", "hygiene.sh":
			// Back to back is what naive does without alignment.
			if r.Status != results.StatusOK || r.Footprint != naive.Footprint || len(r.TimesNs) != 2 || r.Kind != results.KindStrategy {
				t.Errorf("%s: %+v; want ok with naive's footprint %d", k, r, naive.Footprint)
			}
		case "overlap.sh":
			if r.Status != results.StatusInvalid || !strings.Contains(r.Error, "overlap") {
				t.Errorf("%s: status %s (%s), want invalid with an overlap", k, r.Status, r.Error)
			}
		case "missing.sh":
			// Too few lines: an invalid plan, not an error.
			if r.Status != results.StatusInvalid || !strings.HasSuffix(r.Error, "buffers missing; want one line per buffer)") {
				t.Errorf("%s: status %s (%q), want invalid", k, r.Status, r.Error)
			}
		case "traceback.sh":
			if r.Status != results.StatusError || !strings.HasPrefix(r.Error, dir+"traceback.sh: exit status 1: Traceback (most recent call last):\n") {
				t.Errorf("%s: status %s (%q), want error with the whole traceback", k, r.Status, r.Error)
			}
		case "fail.sh":
			if r.Status != results.StatusError || !strings.HasPrefix(r.Error, dir+"fail.sh: exit status 3: capacity none\nid,lower,upper,size\n0,0,") {
				t.Errorf("%s: status %s (%q), want error with the planner's stderr", k, r.Status, r.Error)
			}
		}
	}
	// A missing planner is refused before anything runs.
	c = tinyConfig(t, "naive", dir+"nope.sh")
	var ue *workloads.UsageError
	if _, err := Run(context.Background(), Options{Config: c, Out: t.TempDir()}); !errors.As(err, &ue) ||
		!strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing planner: err = %v, want a usage error", err)
	}
}

// TestExecPythonFailure: a real Python planner, given arguments, fails
// with a traceback; the sweep's failure list shows its last line, and the
// record keeps it whole.
func TestExecPythonFailure(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	spec := `exec:python3 ../strategies/testdata/exec/raise.py --why "no room for buffer 3"`
	c := tinyConfig(t, "naive", spec)
	c.Repeats = 1
	c.Workloads = entries("synthetic/chain?n=12")
	out, err := Run(context.Background(), Options{Config: c, Out: t.TempDir()})
	want := "1 of 2 cells failed:\n  synthetic/chain?n=12&seed=0 × " + spec + " #0: error: ValueError: no room for buffer 3"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	if r := out.Failed[0]; !strings.Contains(r.Error, ": exit status 1: Traceback (most recent call last):\n") {
		t.Errorf("record's error %q lacks the traceback", r.Error)
	}
}

// TestExecSweepInterruptLeavesNoProcess: when a sweep is interrupted
// while an exec: planner runs, the planner's processes die with it, also
// those that left its process group.
func TestExecSweepInterruptLeavesNoProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("descendants that leave the process group are caught on Linux only")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid command")
	}
	token := fmt.Sprintf("sweep-%d", os.Getpid())
	left := func() string {
		out, _ := exec.Command("sh", "-c", "grep -l -a -F MEMBENCH_ESCAPE_TEST="+token+" /proc/[0-9]*/environ 2>/dev/null").Output()
		return strings.TrimSpace(string(out))
	}
	c := tinyConfig(t, "exec:../strategies/testdata/exec/escape.sh "+token+" hang")
	c.Repeats = 1
	c.Workloads = entries("synthetic/chain?n=12")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Interrupt the sweep once its planner's escaped processes are up.
	go func() {
		for left() == "" && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	if _, err := Run(ctx, Options{Config: c, Out: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("err = %v, want interrupted", err)
	}
	if l := left(); l != "" {
		t.Errorf("processes outlived the interrupted sweep: %s", l)
		exec.Command("sh", "-c", "for f in "+strings.ReplaceAll(l, "\n", " ")+"; do p=${f#/proc/}; kill -9 ${p%/environ}; done").Run()
	}
}

// TestExecSweepDeadWorkerLeavesNoProcess: when a sweep's worker dies of a
// signal membench did not send while an exec: planner runs, the processes
// the planner started die too, in its process group or not.
func TestExecSweepDeadWorkerLeavesNoProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a dead worker's planners are told apart on Linux only")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid command")
	}
	token := fmt.Sprintf("dead-worker-%d", os.Getpid())
	left := func() string {
		out, _ := exec.Command("sh", "-c", "grep -l -a -F MEMBENCH_KILLWORKER_TEST="+token+" /proc/[0-9]*/environ 2>/dev/null").Output()
		return strings.TrimSpace(string(out))
	}
	c := tinyConfig(t, "exec:testdata/exec/killworker.sh "+token)
	c.Repeats = 1
	c.Workloads = entries("synthetic/chain?n=12")
	out, err := Run(context.Background(), Options{Config: c, Out: t.TempDir()})
	if err == nil || len(out.Failed) != 1 || !strings.HasPrefix(out.Failed[0].Error, "worker killed by signal SIGKILL") {
		t.Errorf("err = %v, want the cell failed by the worker's death", err)
	}
	l := left()
	for i := 0; l != "" && i < 50; i++ {
		time.Sleep(20 * time.Millisecond)
		l = left()
	}
	if l != "" {
		t.Errorf("processes outlived the dead worker: %s", l)
		exec.Command("sh", "-c", "for f in "+strings.ReplaceAll(l, "\n", " ")+"; do p=${f#/proc/}; kill -9 ${p%/environ}; done").Run()
	}
}
