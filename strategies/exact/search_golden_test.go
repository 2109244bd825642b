package exact_test

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"membench/strategies/exact"
	"membench/workloads"
)

var update = flag.Bool("update", false, "rewrite testdata/search.golden and minimise.golden from the current search")

// sharedFactor returns n buffers with sizes that share the factor 4 and
// lifetimes up to maxLife tasks starting within span tasks.
func sharedFactor(rng *rand.Rand, n, span, maxLife int) *workloads.Problem {
	p := &workloads.Problem{Name: "random"}
	for i := range n {
		first := rng.IntN(span)
		p.Buffers = append(p.Buffers, workloads.Buffer{
			ID: i, Size: 4 * int64(1+rng.IntN(40)), First: first, Last: first + rng.IntN(maxLife),
		})
	}
	return p
}

func TestSearchGolden(t *testing.T) {
	type tc struct {
		name string
		p    *workloads.Problem
		c    int64 // 0: some eighths of the way from the bound to a greedy plan
	}
	var cases []tc
	rng := rand.New(rand.NewPCG(7, 24))
	for i := range 25 {
		cases = append(cases, tc{fmt.Sprintf("dense-%d", i), sharedFactor(rng, 40+rng.IntN(60), 20, 12), 0})
	}
	for i := range 25 {
		// Sparse: long timeline, short lifetimes.
		cases = append(cases, tc{fmt.Sprintf("sparse-%d", i), sharedFactor(rng, 60+rng.IntN(60), 200, 6), 0})
	}
	for i := range 30 {
		f := []workloads.Forms{workloads.FormAlign, workloads.FormGaps, workloads.FormFixed,
			workloads.FormAlign | workloads.FormGaps | workloads.FormFixed}[i%4]
		cases = append(cases, tc{fmt.Sprintf("forms-%d", i), formsProblem(rng, 8+rng.IntN(10), f), 0})
	}
	for _, m := range []struct {
		name string
		c    int64
	}{{"D", 1034240}, {"J", 1036288}} {
		// The random problems are checked without the shared inputs.
		path := "../../../shared/workloads/minimalloc/" + m.name + ".1048576.csv"
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			continue
		}
		cases = append(cases, tc{fmt.Sprintf("%s-%d", m.name, m.c), minimalloc(t, m.name), m.c})
	}
	names := map[string]bool{}
	for _, c := range cases {
		names[c.name] = true
	}
	var got []string
	for i, c := range cases {
		runs, err := exact.SearchRuns(c.p, c.c, int64(i%8), 5000)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			got = append(got, c.name+" "+r)
		}
	}
	const path = "testdata/search.golden"
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if name, _, _ := strings.Cut(sc.Text(), " "); names[name] {
			want = append(want, sc.Text())
		}
	}
	if len(want) != len(got) {
		t.Fatalf("%d searches, golden has %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("search %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}
