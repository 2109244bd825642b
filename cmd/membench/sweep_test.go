package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSweepOneWriter: a run into a folder another process writes (it
// holds the folder's flock) fails at once with exit status 1, naming the
// folder and the holder; so do merge and plot.
func TestSweepOneWriter(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "busy")
	expect(t, 0, nil, "run", "--config", "testdata/tiny.toml", "--out", dir)
	f, err := os.OpenFile(filepath.Join(dir, ".membench.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "%d\n", os.Getpid())
	want := fmt.Sprintf("membench: %s is in use: another membench (pid %d) is writing to it; wait for it to end, or choose another --out\n", dir, os.Getpid())
	for _, args := range [][]string{
		{"run", "--config", "testdata/tiny.toml", "--out", dir, "--resume"},
		{"run", "--config", "testdata/tiny.toml", "--out", dir, "--force"},
		{"run", "--config", "testdata/tiny.toml", "--out", dir, "--resume", "--retry-failed"},
		{"merge", "--force", "--out", dir, dir},
		{"plot", dir},
	} {
		r := membench(t, args...)
		if r.code != 1 || r.stderr != want {
			t.Errorf("membench %q: exit %d, stderr %q; want 1, %q", args, r.code, r.stderr, want)
		}
	}
	unix.Flock(int(f.Fd()), unix.LOCK_UN)
	r := expect(t, 0, nil, "run", "--config", "testdata/tiny.toml", "--out", dir, "--resume", "--retry-failed")
	if !strings.Contains(r.stdout, dir+": 0 cells run, 6 already done, 0 failed\n") {
		t.Errorf("resume output:\n%s", r.stdout)
	}
	expect(t, 2, []string{"--retry-failed goes with --resume"}, "run", "--config", "testdata/tiny.toml", "--out", dir, "--retry-failed")
}

// TestPlanExecArgs: `plan` takes an exec: planner with arguments.
func TestPlanExecArgs(t *testing.T) {
	// With no gap, args.sh lays buffers back to back, as backtoback.sh.
	r := expect(t, 0, nil, "plan", "--strategy", execDir+`args.sh "two words" 0`, "--format", "csv", complexCSV)
	want := expect(t, 0, nil, "plan", "--strategy", execDir+"backtoback.sh", "--format", "csv", complexCSV)
	if !strings.HasPrefix(r.stdout, "id,offset\n0,0\n1,32\n") || r.stdout != want.stdout {
		t.Errorf("plan output:\n%s\nwant\n%s", r.stdout, want.stdout)
	}
	expect(t, 2, []string{`exec strategy "` + execDir + `args.sh 'x": unbalanced quotes`}, "plan", "--strategy", execDir+`args.sh 'x`, complexCSV)
}
