// Package proctest finds the processes a test started, by a variable it
// put in their environment, so that the test can check that none outlived
// what should have killed them: a check on what happened, not on how long
// it took.
package proctest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Marked returns the pids of the live processes, other than this one,
// whose environment holds env ("NAME=value"). Only Linux lists them
// (/proc/PID/environ); elsewhere it returns none. A process that has
// exited, zombie or not, has no environment left and is not listed.
func Marked(env string) []int {
	var pids []int
	files, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, f := range files {
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		if pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(string(b), "\x00") {
			if kv == env {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// Mark sets a variable unique to the test t in the environment that the
// processes it starts inherit, for the rest of t, and returns it as
// "NAME=value" for Marked.
func Mark(t testing.TB, name string) string {
	value := strconv.Itoa(os.Getpid()) + "-" + strings.ReplaceAll(t.Name(), "/", "-")
	t.Setenv(name, value)
	return name + "=" + value
}
