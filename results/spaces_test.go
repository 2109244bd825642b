package results

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestSummarySpaces: records of a problem with memory spaces add a table
// of each space's footprint against its LB_load; others add none, and
// their JSON has no spaces field.
func TestSummarySpaces(t *testing.T) {
	rec := Record{Workload: "w.json", N: 3, Hash: "h", Subject: "naive", Kind: KindStrategy, Status: StatusOK,
		Footprint: 40, LBLoad: 32, Ratio: 1.25, TimesNs: []float64{100},
		Spaces: []SpaceStat{{Name: "sram", Footprint: 24, LBLoad: 16, Capacity: 1 << 20}, {Name: "dram", Footprint: 16, LBLoad: 16}}}
	var b strings.Builder
	if err := WriteSummary(&b, "t", []Record{rec}, nil); err != nil {
		t.Fatal(err)
	}
	want := "\n## Strategies: memory spaces, footprint / LB_load (footprint in MiB)\n\n" +
		"| workload | subject | space | LB_load (MiB) | capacity (MiB) | footprint / LB_load |\n|---|---|---|---:|---:|---:|\n" +
		"| w.json | naive | sram | 0.0000153 | 1 | 1.5000 (0.0000229) |\n" +
		"| w.json | naive | dram | 0.0000153 | — | 1.0000 (0.0000153) |\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("summary lacks\n%s\ngot\n%s", want, b.String())
	}
	data, _ := json.Marshal(rec)
	var back Record
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back.Spaces, rec.Spaces) {
		t.Fatalf("JSON round trip: %v, %+v", err, back.Spaces)
	}
	rec.Spaces = nil
	b.Reset()
	WriteSummary(&b, "t", []Record{rec}, nil)
	if data, _ := json.Marshal(rec); strings.Contains(b.String(), "memory spaces") || strings.Contains(string(data), "spaces") {
		t.Errorf("no spaces, yet:\n%s\n%s", b.String(), data)
	}
}
