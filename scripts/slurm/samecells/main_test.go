package main

import (
	"slices"
	"testing"

	"membench/results"
)

func TestCompare(t *testing.T) {
	rec := func(w string, fp int64, times ...float64) results.Record {
		return results.Record{Workload: w, Subject: "naive", Kind: results.KindStrategy, Status: results.StatusOK,
			Footprint: fp, LBLoad: 10, Iters: len(times), TimesNs: times}
	}
	a, b, c := rec("a", 10, 1, 2), rec("b", 20, 3), rec("c", 30)
	for _, tc := range []struct {
		name  string
		x, y  []results.Record
		diffs []string
	}{
		{"same cells, other timings", []results.Record{a, b}, []results.Record{rec("a", 10, 5), rec("b", 20)}, nil},
		{"a cell missing", []results.Record{a, b, c}, []results.Record{a, b}, []string{"cell c × naive #0 only in the first"}},
		{"a cell more", []results.Record{a}, []results.Record{a, c}, []string{"cell c × naive #0 only in the second"}},
		{"another footprint", []results.Record{a, b}, []results.Record{a, rec("b", 21)}, []string{"cell b × naive #0 differs:\n" +
			`  {"workload":"b","n":0,"hash":"","subject":"naive","kind":"strategy","repeat":0,"status":"ok","footprint":20,"lb_load":10,"lb_objects":0,"ratio":0,"ratio_objects":0,"iters":0,"times_ns":null}` + "\n" +
			`  {"workload":"b","n":0,"hash":"","subject":"naive","kind":"strategy","repeat":0,"status":"ok","footprint":21,"lb_load":10,"lb_objects":0,"ratio":0,"ratio_objects":0,"iters":0,"times_ns":null}`}},
		{"another status", []results.Record{a}, []results.Record{{Workload: "a", Subject: "naive", Kind: results.KindStrategy, Status: results.StatusTimeout, Footprint: 10, LBLoad: 10}},
			[]string{"cell a × naive #0 differs:\n" +
				`  {"workload":"a","n":0,"hash":"","subject":"naive","kind":"strategy","repeat":0,"status":"ok","footprint":10,"lb_load":10,"lb_objects":0,"ratio":0,"ratio_objects":0,"iters":0,"times_ns":null}` + "\n" +
				`  {"workload":"a","n":0,"hash":"","subject":"naive","kind":"strategy","repeat":0,"status":"timeout","footprint":10,"lb_load":10,"lb_objects":0,"ratio":0,"ratio_objects":0,"iters":0,"times_ns":null}`}},
		{"another order", []results.Record{a, b}, []results.Record{b, a}, []string{"cell a × naive #0 is not at position 0 in the second", "cell b × naive #0 is not at position 1 in the second"}},
	} {
		if got := compare(tc.x, tc.y); !slices.Equal(got, tc.diffs) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.diffs)
		}
	}
}
