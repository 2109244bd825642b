package results

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchproc"
)

// benchRecords is fixedRecords plus subjects whose specs need escaping in
// a benchmark name.
func benchRecords() []Record {
	recs := fixedRecords()
	for _, s := range []string{"exec:./planners/mini planner.py", "greedy-v-2"} {
		recs = append(recs, Record{Workload: "zoo/mobilenet-v2", N: 65, Subject: s, Kind: KindStrategy,
			Status: StatusOK, Footprint: 1200, LBLoad: 1000, Ratio: 1.2, Iters: 3, TimesNs: []float64{70}})
	}
	recs = append(recs, Record{Workload: "../shared/workloads/minimalloc/A.1048576.csv", N: 100, Subject: "bfc?memory_limit=1G",
		Kind: KindAllocator, Status: StatusOK, Footprint: 2 << 20, LBLoad: 1 << 20, Ratio: 2, Iters: 1, TimesNs: []float64{40}})
	return recs
}

func TestBenchfmtGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteBenchfmt(&buf, map[string]string{"goos": "linux", "pkg": "membench"}, benchRecords(), nil); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "results.txt")
	if *update {
		os.WriteFile(golden, buf.Bytes(), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != string(want) {
		t.Errorf("results.txt differs from %s (run with -update to accept):\n%s", golden, got)
	}
}

// TestBenchstatFilters runs benchstat's own filter (benchproc, which
// benchstat's -filter uses) on results.txt: the values users type are the
// specs as given.
func TestBenchstatFilters(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteBenchfmt(&buf, map[string]string{"goos": "linux"}, benchRecords(), nil); err != nil {
		t.Fatal(err)
	}
	type cell struct{ workload, subject string }
	var all []cell
	var parsed []*benchfmt.Result
	r := benchfmt.NewReader(bytes.NewReader(buf.Bytes()), "results.txt")
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			t.Fatalf("results.txt: %v", r.Result())
		}
		parsed = append(parsed, res.Clone())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	for _, res := range parsed {
		all = append(all, cell{res.GetConfig("workload"), string(nameKey(res, "subject"))})
	}
	for _, tc := range []struct {
		filter string
		want   map[cell]int // results per (workload, subject)
	}{
		{"workload:zoo/mobilenet-v2", map[cell]int{
			{"zoo/mobilenet-v2", "greedy-by-size"}: 4, {"zoo/mobilenet-v2", "naive"}: 4, {"zoo/mobilenet-v2", "bfc"}: 2,
			{"zoo/mobilenet-v2", "exec:.∕planners∕mini_planner.py"}: 1, {"zoo/mobilenet-v2", "greedy-v-2"}: 1}},
		{"workload:synthetic/chain?n=10 /subject:naive", map[cell]int{{"synthetic/chain?n=10", "naive"}: 4}},
		{`workload:"synthetic/chain?n=10" /subject:bfc`, map[cell]int{{"synthetic/chain?n=10", "bfc"}: 2}},
		{"/subject:greedy-v-2", map[cell]int{{"zoo/mobilenet-v2", "greedy-v-2"}: 1}},
		{".name:Replay", map[cell]int{{"zoo/mobilenet-v2", "bfc"}: 2, {"synthetic/chain?n=10", "bfc"}: 2,
			{"../shared/workloads/minimalloc/A.1048576.csv", "bfc?memory_limit=1G"}: 1}},
		{"/subject:bfc?memory_limit=1G", map[cell]int{{"../shared/workloads/minimalloc/A.1048576.csv", "bfc?memory_limit=1G"}: 1}},
		{"workload:../shared/workloads/minimalloc/A.1048576.csv", map[cell]int{{"../shared/workloads/minimalloc/A.1048576.csv", "bfc?memory_limit=1G"}: 1}},
		{"workload:zoo/resnet-50", map[cell]int{}},
	} {
		f, err := benchproc.NewFilter(tc.filter)
		if err != nil {
			t.Fatalf("%s: %v", tc.filter, err)
		}
		got := map[cell]int{}
		for i, res := range parsed {
			m, err := f.Match(res)
			if err != nil {
				t.Fatal(err)
			}
			if m.All() {
				got[all[i]]++
			} else if m.Any() {
				t.Errorf("%s: partial match of %s", tc.filter, res.Name)
			}
		}
		if len(got) != len(tc.want) {
			t.Errorf("-filter %q matched %v, want %v", tc.filter, got, tc.want)
			continue
		}
		for c, n := range tc.want {
			if got[c] != n {
				t.Errorf("-filter %q matched %v, want %v", tc.filter, got, tc.want)
				break
			}
		}
	}
}

// nameKey is benchstat's /key: the value of key=value in the name, with
// GOMAXPROCS taken off.
func nameKey(res *benchfmt.Result, key string) []byte {
	_, parts := res.Name.Parts()
	for _, p := range parts {
		if bytes.HasPrefix(p, []byte("/"+key+"=")) {
			return p[len(key)+2:]
		}
	}
	return nil
}

// TestBenchstatTables: benchstat makes one table per distinct
// configuration (its .config projection); results.txt's configuration is
// the caller's keys plus the workload, nothing per sample or per record.
func TestBenchstatTables(t *testing.T) {
	proj, err := (&benchproc.ProjectionParser{}).Parse(".config", nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteBenchfmt(&buf, map[string]string{"goos": "linux", "pkg": "membench"}, fixedRecords(), nil); err != nil {
		t.Fatal(err)
	}
	var tables []string
	r := benchfmt.NewReader(&buf, "results.txt")
	for r.Scan() {
		if res, ok := r.Result().(*benchfmt.Result); ok {
			tables = append(tables, proj.Project(res).String())
		}
	}
	slices.Sort(tables)
	tables = slices.Compact(tables)
	want := []string{"goos:linux pkg:membench workload:synthetic/chain?n=10", "goos:linux pkg:membench workload:zoo/mobilenet-v2"}
	if !slices.Equal(tables, want) {
		t.Errorf("benchstat tables %q, want %q", tables, want)
	}
}
