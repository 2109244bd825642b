package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const smokeTrace = "../../allocators/testdata/bfc/smoke.csv"

func replayCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), append([]string{"replay"}, args...), &out, &errb)
	return out.String(), err
}

// TestReplayJSON checks the JSON object of DESIGN §4 against TensorFlow's
// replay of smoke.csv (testdata/bfc/smoke.g16G.out).
func TestReplayJSON(t *testing.T) {
	out, err := replayCmd(t, "--allocator", "bfc?memory_limit=16G", "--repeat", "3", "--format", "json", smokeTrace)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	var keys []string
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	// DESIGN §4's keys, and where memory went at the peak (issue 11).
	if want := []string{"allocator", "allocs", "ooms", "peak", "stats"}; !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	var got struct {
		Allocator string
		Allocs    [][]int64
		OOMs      int `json:"ooms"`
		Stats     map[string]*float64
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	want := [][]int64{{1, 1, 0, 256}, {2, 256, 256, 256}, {3, 257, 512, 512}, {4, 1000000, 1024, 1000192},
		{5, 100, 256, 256}, {6, 600, 1001216, 768}, {7, 3000000, 2097152, 4194304}, {8, 5000000, 6291456, 8388608}}
	if got.Allocator != "bfc?memory_limit=16G" || got.OOMs != 0 || !slices.EqualFunc(got.Allocs, want, slices.Equal) {
		t.Errorf("allocator %q ooms %d allocs %v, want %v", got.Allocator, got.OOMs, got.Allocs, want)
	}
	wantStats := map[string]float64{"peak_in_use": 5000000 + 3000000 + 1000000 + 600 + 100,
		"peak_allocated": 13584128, "peak_reserved": 14680064, "largest_free_chunk": 8388608,
		"fragmentation": 0.42857142857142855}
	if len(got.Stats) != 6 {
		t.Errorf("stats %v: want 6 fields", got.Stats)
	}
	for k, v := range wantStats {
		if got.Stats[k] == nil || *got.Stats[k] != v {
			t.Errorf("stats.%s = %v, want %v", k, got.Stats[k], v)
		}
	}
	if ns := got.Stats["ns_per_op"]; ns == nil || *ns <= 0 {
		t.Errorf("stats.ns_per_op = %v, want > 0", ns)
	}
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReplayJSONNullFragmentation: with the pool fully in use BFC's metric
// is undefined and printed as null; the OOM and the zero-byte request get
// offset -1 and chunk 0.
func TestReplayJSONNullFragmentation(t *testing.T) {
	p := writeFile(t, "full.trace", "a,1,1048576\na,2,1\na,3,0\nf,2,\n")
	out, err := replayCmd(t, "--allocator", "bfc?memory_limit=1M&allow_growth=false", "--format", "json", p)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"allocs":[[1,1048576,0,1048576],[2,1,-1,0],[3,0,-1,0]]`, `"ooms":1`, `"fragmentation":null`,
		`"peak_in_use":1048576`, `"peak_reserved":1048576`, `"largest_free_chunk":0`} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %s:\n%s", s, out)
		}
	}
}

func TestReplayText(t *testing.T) {
	out, err := replayCmd(t, "--allocator", "bfc", smokeTrace)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"allocator           bfc\n", "OOMs                0\n",
		"peak reserved       14680064 B = 14.00 MiB (footprint)\n",
		"fragmentation       0.4286 at the end, max 0.4776 (BFC's metric: 1 - largest free chunk / free reserved bytes)\n"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, "verify") {
		t.Errorf("replay without --verify says it verified:\n%s", out)
	}
}

// TestReplayVerifyAndMetricNames: --verify says what it checked, in text
// and JSON; only bfc's fragmentation is called BFC's metric.
func TestReplayVerifyAndMetricNames(t *testing.T) {
	for _, tc := range []struct {
		allocator, frag string
	}{
		{"bfc", "(BFC's metric: 1 - largest free chunk / free reserved bytes)\n"},
		{"torch-caching", "(largest-free fragmentation: 1 - largest free chunk / free reserved bytes)\n"},
		{"first-fit", "(largest-free fragmentation: 1 - largest free chunk / free reserved bytes)\n"},
	} {
		out, err := replayCmd(t, "--allocator", tc.allocator, "--verify", "--repeat", "1", smokeTrace)
		if err != nil {
			t.Fatal(err)
		}
		// smoke.csv: 8 allocations, all freed.
		const verify = "verify              8 allocations checked for size and overlap, 8 frees, 16 guard stamps intact, 0 violations\n"
		if !strings.Contains(out, tc.frag) || !strings.Contains(out, verify) || (tc.allocator != "bfc" && strings.Contains(out, "BFC")) {
			t.Errorf("%s: output lacks %q or %q, or names BFC:\n%s", tc.allocator, tc.frag, verify, out)
		}
		js, err := replayCmd(t, "--allocator", tc.allocator, "--verify", "--repeat", "1", "--format", "json", smokeTrace)
		if err != nil {
			t.Fatal(err)
		}
		if want := `"verify":{"allocations":8,"frees":8,"guard_stamps":16}}`; !strings.HasSuffix(strings.TrimSpace(js), want) {
			t.Errorf("%s --format json: want it to end in %s:\n%s", tc.allocator, want, js)
		}
	}
}

func TestReplayBadUsage(t *testing.T) {
	badTrace := writeFile(t, "full.trace", "a,1,10\nf,1,\nf,1,\n")
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"no allocator", []string{smokeTrace}, "--allocator is required"},
		{"unknown allocator", []string{"--allocator", "nope", smokeTrace}, `unknown allocator "nope"`},
		{"bad parameter", []string{"--allocator", "bfc?memory_limit=x", smokeTrace}, "memory_limit"},
		{"bad format", []string{"--allocator", "bfc", "--format", "xml", smokeTrace}, "want text or json"},
		{"bad repeat", []string{"--allocator", "bfc", "--repeat", "0", smokeTrace}, "--repeat=0"},
		{"no workload", []string{"--allocator", "bfc"}, "want exactly one WORKLOAD"},
		{"bad trace", []string{"--allocator", "bfc", "BADTRACE"}, "full.trace"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := slices.Clone(tc.args)
			for i := range args {
				if args[i] == "BADTRACE" {
					args[i] = badTrace
				}
			}
			_, err := replayCmd(t, args...)
			var errb bytes.Buffer
			if code := exitCode(err, &errb); code != 2 || !strings.Contains(errb.String(), tc.msg) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errb.String(), tc.msg)
			}
		})
	}
}

func TestReplayHelp(t *testing.T) {
	out, err := replayCmd(t, "--help")
	if err != nil || !strings.Contains(out, "Usage: membench replay --allocator SPEC") || !strings.Contains(out, "--verify") {
		t.Errorf("err %v, help:\n%s", err, out)
	}
}
