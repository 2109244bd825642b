//go:build unix

package main

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestTimeoutCoversLoading: --timeout counts from the start, loading
// included: a workload that never finishes loading (a FIFO nobody writes)
// times out with exit 1.
func TestTimeoutCoversLoading(t *testing.T) {
	for _, cmd := range [][]string{{"plan", "--strategy", "naive"}, {"replay", "--allocator", "bfc"}} {
		fifo := filepath.Join(t.TempDir(), "never.trace")
		if err := unix.Mkfifo(fifo, 0o600); err != nil {
			t.Skip("no FIFO:", err)
		}
		// Let the abandoned load finish once the test is done.
		t.Cleanup(func() {
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.Close()
			}
		})
		args := append(cmd, "--timeout", "100ms", fifo)
		r := membench(t, args...)
		want := "membench: " + cmd[0] + ": loading " + fifo + ": timed out after 100ms; use --timeout DUR to raise it (0: no limit)\n"
		if r.code != 1 || r.stderr != want {
			t.Errorf("membench %q: exit %d, stderr %s  want: %s", args, r.code, r.stderr, want)
		}
	}
}
