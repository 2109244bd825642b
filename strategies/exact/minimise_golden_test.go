package exact_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestMinimiseGolden minimises MiniMalloc's D and J with a node budget
// and compares the footprint, bound, nodes and offsets with goldens
// written before a search node's work was cut (issue 24): the cuts must
// not change what is searched.
func TestMinimiseGolden(t *testing.T) {
	var got []string
	for _, name := range []string{"D", "J"} {
		p := minimalloc(t, name)
		const spec = "exact?nodes=20000"
		plan, err := lookup(t, spec).Plan(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		offs := make([]string, len(plan.Offsets))
		for i, o := range plan.Offsets {
			offs[i] = fmt.Sprint(o)
		}
		got = append(got, fmt.Sprintf("%s %s footprint=%d bound=%d nodes=%d offsets=%s",
			name, spec, plan.Footprint, plan.Bound, plan.Nodes, strings.Join(offs, ",")))
	}
	const path = "testdata/minimise.golden"
	if *update {
		if err := os.WriteFile(path, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(want) != len(got) {
		t.Fatalf("%d plans, golden has %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("plan %d:\n got %.200s\nwant %.200s", i, got[i], want[i])
		}
	}
}
