package exact

import (
	"errors"
	"io/fs"
	"testing"

	"membench/workloads"
)

// MiniMallocInstance loads a MiniMalloc challenge instance from
// ../shared, skipping where it is absent; the tests of both packages
// here load them through it.
func MiniMallocInstance(t testing.TB, name string) *workloads.Problem {
	t.Helper()
	path := "../../../shared/workloads/minimalloc/" + name + ".1048576.csv"
	w, err := workloads.Load(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s is absent", path)
	} else if err != nil {
		t.Fatal(err)
	}
	return w.Problem
}
