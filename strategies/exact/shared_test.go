package exact

import (
	"errors"
	"os"
	"testing"

	"membench/workloads"
)

// exists reports whether path is there. workloads.Load's error for a
// missing file says "unknown workload" and wraps no fs.ErrNotExist, so
// the tests that read ../shared ask first: without it they skip.
func exists(t testing.TB, path string) bool {
	t.Helper()
	_, err := os.Stat(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return err == nil
}

// MiniMallocInstance loads a MiniMalloc challenge instance from
// ../shared, skipping where it is absent; the tests of both packages
// here load them through it.
func MiniMallocInstance(t testing.TB, name string) *workloads.Problem {
	t.Helper()
	path := "../../../shared/workloads/minimalloc/" + name + ".1048576.csv"
	if !exists(t, path) {
		t.Skipf("%s is absent", path)
	}
	w, err := workloads.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return w.Problem
}
