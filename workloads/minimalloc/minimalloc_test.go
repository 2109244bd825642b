package minimalloc

import (
	"bytes"
	"os"
	"testing"

	"membench/internal/shippedtest"
)

// TestRegistered loads every shipped instance by name and checks its size,
// lower bound and capacity against MiniMalloc's README table, and that the
// conversions keep the bound on this real data.
func TestRegistered(t *testing.T) {
	cases := []shippedtest.Instance{
		{Name: "minimalloc/a", N: 154, LB: 1048576, Cap: 1048576},
		{Name: "minimalloc/b", N: 170, LB: 1048576, Cap: 1048576},
		{Name: "minimalloc/c", N: 203, LB: 1039360, Cap: 1048576},
		{Name: "minimalloc/d", N: 213, LB: 986112, Cap: 1048576},
		{Name: "minimalloc/e", N: 215, LB: 1048576, Cap: 1048576},
		{Name: "minimalloc/f", N: 296, LB: 1048576, Cap: 1048576},
		{Name: "minimalloc/g", N: 308, LB: 1048576, Cap: 1048576},
		{Name: "minimalloc/h", N: 316, LB: 1048576, Cap: 1048576},
		{Name: "minimalloc/i", N: 374, LB: 1048576, Cap: 1048576},
		{Name: "minimalloc/j", N: 409, LB: 989184, Cap: 1048576},
		{Name: "minimalloc/k", N: 454, LB: 1048576, Cap: 1048576},
		{Name: "minimalloc/example", N: 5, LB: 12, Cap: 12},
	}
	if len(cases) != len(Files) {
		t.Fatalf("%d registered instances, want %d", len(Files), len(cases))
	}
	shippedtest.CheckRegistered(t, cases)
}

// TestSameAsShared checks that the shipped files are byte for byte the ones
// in ../shared, so that a result keyed by content hash matches either.
func TestSameAsShared(t *testing.T) {
	const shared = "../../../shared/workloads/minimalloc/"
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("%s absent: %v", shared, err)
	}
	for _, file := range append(mapValues(Files), "LICENSE") {
		want, err := os.ReadFile(shared + file)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile("data/" + file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("data/%s differs from %s%s", file, shared, file)
		}
	}
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
