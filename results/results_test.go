package results

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// fixedRecords is a tiny sweep: two workloads, two strategies, one
// allocator, two repeats, and one failed cell.
func fixedRecords() []Record {
	var recs []Record
	for _, w := range []struct {
		name string
		n    int
		lb   int64
	}{{"zoo/mobilenet-v2", 65, 1000}, {"synthetic/chain?n=10", 10, 64}} {
		for rep := 0; rep < 2; rep++ {
			recs = append(recs,
				Record{Workload: w.name, N: w.n, Subject: "greedy-by-size", Kind: KindStrategy, Repeat: rep,
					Status: StatusOK, Footprint: w.lb * 11 / 10, LBLoad: w.lb, Ratio: float64(w.lb*11/10) / float64(w.lb),
					Iters: 10, TimesNs: []float64{1000 + float64(rep), 1100}},
				Record{Workload: w.name, N: w.n, Subject: "naive", Kind: KindStrategy, Repeat: rep,
					Status: StatusOK, Footprint: w.lb * 3, LBLoad: w.lb, Ratio: 3,
					Iters: 100, TimesNs: []float64{50, 60}},
				Record{Workload: w.name, N: w.n, Subject: "bfc", Kind: KindAllocator, Repeat: rep,
					Status: StatusOK, Footprint: 2 << 20, LBLoad: w.lb, Ratio: float64(2<<20) / float64(w.lb),
					Iters: 1, TimesNs: []float64{55.5}, Alloc: &AllocStats{PeakInUse: w.lb, PeakReserved: 2 << 20}},
			)
		}
	}
	recs = append(recs, Record{Workload: "synthetic/chain?n=10", N: 10, Subject: "min-cost-flow",
		Kind: KindStrategy, Status: StatusTimeout, Error: "cell timed out after 60s"})
	return recs
}

func TestStoreAppendAndTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	s, old, err := Open(path)
	if err != nil || len(old) != 0 {
		t.Fatalf("Open new: %v, %d records", err, len(old))
	}
	recs := fixedRecords()
	for i := range recs[:3] {
		if err := s.Append(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	// A kill mid-write leaves a torn line.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"workload":"zoo/x","sub`)
	f.Close()

	got, good, err := ReadFile(path)
	if err != nil || len(got) != 3 {
		t.Fatalf("ReadFile: %v, %d records, want 3", err, len(got))
	}
	s, old, err = Open(path)
	if err != nil || len(old) != 3 {
		t.Fatalf("reopen: %v, %d records", err, len(old))
	}
	if err := s.Append(&recs[3]); err != nil {
		t.Fatal(err)
	}
	s.Close()
	got, good2, err := ReadFile(path)
	if err != nil || len(got) != 4 || got[3].Key() != recs[3].Key() {
		t.Fatalf("after torn line and append: %v, %d records", err, len(got))
	}
	if info, _ := os.Stat(path); info.Size() != good2 || good2 <= good {
		t.Errorf("file size %d, intact prefix %d (was %d)", info.Size(), good2, good)
	}
}

func TestReadFileBadLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	ok := `{"workload":"a","subject":"naive","repeat":0,"status":"ok"}`
	for _, tc := range []struct{ data, want string }{
		{ok + "\nnot json\n{}\n", ":2: not a result record: invalid character 'o' in literal null (expecting 'u')"},
		{ok + "\n{\"workload\":\"a\"}\n", ":2: not a result record: no workload or subject"},
		{ok + ok + "\n", `:1: not a result record: text after the record: "{\"workload\":\"a\",\"sub"`},
		{`{"workload":"a","subject":"b","status":"fine"}` + "\n", `:1: not a result record: status "fine": want one of ok, invalid, error, timeout, oom, unsupported`},
	} {
		os.WriteFile(path, []byte(tc.data), 0o644)
		_, _, err := ReadFile(path)
		want := path + tc.want + " (membench run --resume drops such lines)"
		if err == nil || err.Error() != want {
			t.Errorf("ReadFile(%q) = %v, want %s", tc.data, err, want)
		}
	}
}

// TestOpenDropsGarbledLines: two writers interleaving leave garbled lines
// in the middle of the file; Open keeps every good record, drops the bad
// lines (kept aside in results.jsonl.garbled) and names them.
func TestOpenDropsGarbledLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	recs := fixedRecords()
	var lines []string
	for i := range 4 {
		b, _ := json.Marshal(&recs[i])
		lines = append(lines, string(b))
	}
	// Line 2 is half of record 1 glued to record 2; line 4 is the rest of
	// record 1; line 5 is record 3; then a torn line.
	data := lines[0] + "\n" + lines[1][:40] + lines[2] + "\n\n" + lines[1][40:] + "\n" + lines[3] + "\n" + lines[0][:10]
	os.WriteFile(path, []byte(data), 0o644)
	s, got, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var keys []Key
	for _, r := range got {
		keys = append(keys, r.Key())
	}
	if want := []Key{recs[0].Key(), recs[3].Key()}; !slices.Equal(keys, want) {
		t.Errorf("Open kept %v, want %v", keys, want)
	}
	var dropped []string
	for _, d := range s.Dropped {
		dropped = append(dropped, d.String())
	}
	want := []string{
		"line 2: invalid character 'w' after object key",
		"line 4: invalid character 'a' looking for beginning of value",
	}
	if !slices.Equal(dropped, want) {
		t.Errorf("Dropped = %q, want %q", dropped, want)
	}
	if err := s.Append(&recs[1]); err != nil {
		t.Fatal(err)
	}
	s.Close()
	after, _ := os.ReadFile(path)
	if want := lines[0] + "\n\n" + lines[3] + "\n" + lines[1] + "\n"; string(after) != want {
		t.Errorf("file after Open and Append:\n%s\nwant\n%s", after, want)
	}
	garbled, _ := os.ReadFile(path + GarbledSuffix)
	if want := lines[1][:40] + lines[2] + "\n" + lines[1][40:] + "\n"; string(garbled) != want {
		t.Errorf("%s:\n%s\nwant\n%s", GarbledSuffix, garbled, want)
	}
	if _, _, err := ReadFile(path); err != nil {
		t.Errorf("ReadFile after Open: %v", err)
	}
}

// TestLatestRecordWins: a rerun cell's new record supersedes the old one,
// in the old one's place.
func TestLatestRecordWins(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	recs := fixedRecords()
	failed := recs[1]
	failed.Status, failed.Error = StatusError, "worker killed by signal SIGKILL"
	s, _, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Record{recs[0], failed, recs[2], recs[1]} {
		if err := s.Append(&r); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	got, _, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[1].Key() != recs[1].Key() || got[1].Status != StatusOK || got[2].Key() != recs[2].Key() {
		t.Errorf("ReadFile = %+v, want records 0, 1 (ok, the rerun) and 2", got)
	}
	_, reopened, _ := Open(path)
	if len(reopened) != 3 || reopened[1].Status != StatusOK {
		t.Errorf("Open = %+v, want the rerun's record", reopened)
	}
}

func TestBenchfmtParsesBack(t *testing.T) {
	var buf bytes.Buffer
	recs := fixedRecords()
	if err := WriteBenchfmt(&buf, map[string]string{"goos": "linux", "cpu": "test cpu"}, recs, nil); err != nil {
		t.Fatal(err)
	}
	r := benchfmt.NewReader(&buf, "results.txt")
	n := 0
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			t.Fatalf("unexpected record %#v", r.Result())
		}
		if res.GetConfig("goos") != "linux" || res.GetConfig("cpu") != "test cpu" {
			t.Errorf("config lost: %q %q", res.GetConfig("goos"), res.GetConfig("cpu"))
		}
		base, parts := res.Name.Parts()
		if s := string(base); s != "Plan" && s != "Replay" {
			t.Errorf("base name %q", s)
		}
		if len(parts) != 1 || !strings.HasPrefix(string(parts[0]), "/subject=") {
			t.Errorf("name parts %q", parts)
		}
		if w := res.GetConfig(KeyWorkload); w != "zoo/mobilenet-v2" && w != "synthetic/chain?n=10" {
			t.Errorf("workload key %q", w)
		}
		if _, ok := res.Value(UnitFootprint); !ok {
			t.Errorf("%s: no %s value", res.Name, UnitFootprint)
		}
		n++
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	// 12 ok records: 8 strategy records with 2 samples, 4 allocator records with 1.
	if n != 20 {
		t.Errorf("parsed %d results, want 20", n)
	}
}

// summaryRecords adds to fixedRecords a workload where naive ran out of
// memory and min-cost-flow did not run.
func summaryRecords() []Record {
	recs := fixedRecords()
	const w = "synthetic/random-dag?n=100&seed=1"
	return append(recs,
		Record{Workload: w, N: 100, Subject: "greedy-by-size", Kind: KindStrategy, Status: StatusOK,
			Footprint: 3 << 20, LBLoad: 5 << 19, Ratio: 1.2, TimesNs: []float64{2e6, 2.2e6}},
		Record{Workload: w, N: 100, Subject: "naive", Kind: KindStrategy, Status: StatusOOM, Error: "heap limit"},
		Record{Workload: w, N: 100, Subject: "bfc", Kind: KindAllocator, Status: StatusOK,
			Footprint: 4 << 20, LBLoad: 5 << 19, Ratio: 1.6, TimesNs: []float64{70}})
}

// TestSummaryGolden: absolute sizes beside ratios, short names, marks for
// failed and missing cells, and means over the workloads every subject
// completed.
func TestSummaryGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSummary(&buf, "membench sweep: tiny", summaryRecords(), nil); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "summary.md")
	if *update {
		os.WriteFile(golden, buf.Bytes(), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if buf.String() != string(want) {
		t.Errorf("summary.md differs from %s (run with -update to accept):\n%s", golden, buf.String())
	}
}

func TestCompare(t *testing.T) {
	c, err := Compare(fixedRecords(), "naive", "greedy-by-size", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Wins != 2 || c.Losses != 0 || c.Ties != 0 || len(c.Missing) != 0 {
		t.Errorf("wins/ties/losses = %d/%d/%d missing %v; want 2/0/0", c.Wins, c.Ties, c.Losses, c.Missing)
	}
	if len(c.Rows) != 2 {
		t.Fatalf("rows = %d, want 2", len(c.Rows))
	}
	if c.Rows[0].Ratio < 0.36 || c.Rows[0].Ratio > 0.37 {
		t.Errorf("ratio = %v, want 1100/3000", c.Rows[0].Ratio)
	}
	// greedy-by-size's samples (1000..1100 ns) against naive's (50..60 ns)
	// differ on every sample: significant with n=4+4.
	if c.Slower != 2 || c.Rows[0].TimeDelta == "~" {
		t.Errorf("slower = %d, delta %q: want a significant slowdown on both", c.Slower, c.Rows[0].TimeDelta)
	}
	var out bytes.Buffer
	c.Write(&out)
	if !strings.Contains(out.String(), "2 wins, 0 ties, 0 losses") {
		t.Errorf("verdict missing from:\n%s", out.String())
	}
	c, err = Compare(fixedRecords(), "greedy-by-size", "min-cost-flow", nil)
	if err == nil {
		t.Errorf("compare against a subject that only failed: want an error, got %+v", c)
	}
	if _, err := Compare(fixedRecords(), "naive", "nope", nil); err == nil {
		t.Error("compare with an absent candidate: want an error")
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"bfc?memory_limit=1G&allow_growth=true": "bfc-memory_limit-1G-allow_growth-true",
		"synthetic/random-dag":                  "synthetic-random-dag",
		"exec:./my solver":                      "exec-.-my-solver",
		"greedy-by-size":                        "greedy-by-size",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}
