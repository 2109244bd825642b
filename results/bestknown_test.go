package results

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// bestRecords: on problem h1 exact proves its plan optimal, greedy is 25%
// above it; on h2 nothing proves more than LB_load; h3 has only failures.
func bestRecords() []Record {
	return []Record{
		{Workload: "w1", N: 4, Hash: "h1", Subject: "greedy", Kind: KindStrategy, Status: StatusOK, Footprint: 1250, LBLoad: 900, Ratio: 1250.0 / 900},
		{Workload: "w1", N: 4, Hash: "h1", Subject: "exact", Kind: KindStrategy, Status: StatusOK, Footprint: 1000, LBLoad: 900, Ratio: 1000.0 / 900, Bound: 1000, Optimal: true},
		{Workload: "w2", N: 4, Hash: "h2", Subject: "greedy", Kind: KindStrategy, Status: StatusOK, Footprint: 600, LBLoad: 500, Ratio: 1.2},
		{Workload: "w2", N: 4, Hash: "h2", Subject: "exact", Kind: KindStrategy, Status: StatusOK, Footprint: 550, LBLoad: 500, Ratio: 1.1, Bound: 520},
		{Workload: "w3", N: 4, Hash: "h3", Subject: "greedy", Kind: KindStrategy, Status: StatusTimeout, LBLoad: 500},
		{Workload: "w1", N: 4, Hash: "h1", Subject: "bump", Kind: KindAllocator, Status: StatusOK, Footprint: 700, LBLoad: 900},
	}
}

func TestBestKnown(t *testing.T) {
	got := BestKnown(bestRecords(), nil)
	want := map[string]Best{"h1": {1000, 1000}, "h2": {550, 520}}
	if len(got) != len(want) || got["h1"] != want["h1"] || got["h2"] != want["h2"] {
		t.Errorf("BestKnown = %v, want %v (an allocator's footprint is no plan; h3 has none)", got, want)
	}
	// The shipped table counts where it is better, the records where they are.
	got = BestKnown(bestRecords(), BestTable{"h2": {530, 530}, "h1": {1100, 950}})
	if got["h1"] != (Best{1000, 1000}) || got["h2"] != (Best{530, 530}) || !got["h2"].Optimal() {
		t.Errorf("with a table: %v", got)
	}
}

func TestSummaryBest(t *testing.T) {
	var b strings.Builder
	if err := WriteSummary(&b, "t", bestRecords(), nil); err != nil {
		t.Fatal(err)
	}
	want := `## Strategies: footprint / best known (★: the best known is proved optimal)

| workload | n | best known (MiB) | greedy | exact |
|---|---:|---:|---:|---:|
| w1 | 4 | 0.000954 ★ | 1.2500 | 1.0000 |
| w2 | 4 | 0.000525 | 1.0909 | 1.0000 |
| w3 | 4 | — | ✗ timeout | — |
`
	if !strings.Contains(b.String(), want) {
		t.Errorf("summary lacks\n%s\ngot\n%s", want, b.String())
	}
}

func TestBenchfmtBest(t *testing.T) {
	var b bytes.Buffer
	if err := WriteBenchfmt(&b, nil, bestRecords(), nil); err != nil {
		t.Fatal(err)
	}
	r := benchfmt.NewReader(&b, "results.txt")
	got := map[string]float64{}
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		w := res.GetConfig(KeyWorkload)
		for _, v := range res.Values {
			if v.Unit == UnitBestRatio {
				got[w+" "+string(res.Name)] = v.Value
			}
		}
	}
	want := map[string]float64{"w1 Plan/subject=greedy": 1.25, "w1 Plan/subject=exact": 1, "w2 Plan/subject=greedy": 600.0 / 550, "w2 Plan/subject=exact": 1}
	if len(got) != len(want) {
		t.Fatalf("footprint/best values %v, want %v (none for allocators)", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: footprint/best %v, want %v", k, got[k], v)
		}
	}
}

// TestCompareBest: compare gives each subject's gap to the best known,
// starred where that is a proved optimum.
func TestCompareBest(t *testing.T) {
	c, err := Compare(bestRecords(), "greedy", "exact", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.BestRows != 2 || c.Optimal != 1 || !c.Rows[0].Optimal || c.Rows[0].BaseBest != 1.25 || c.Rows[0].CandBest != 1 {
		t.Fatalf("comparison %+v", c)
	}
	var b strings.Builder
	if err := c.Write(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1.2500 ★", "1.0000 ★", "1.0909", "footprint / best known, geomean over 2 workloads (1 with a proved optimum, ★): baseline 1.1677, candidate 1.0000"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}
