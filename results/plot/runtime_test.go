package plot

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"membench/results"
)

// runtimesOf maps the test's strategies to runtimes, as the harness does
// from the strategies registry.
var runtimesOf = map[string]string{
	"naive": "tflite-gpu", "greedy-by-size": "tflite-gpu",
	"xla-heap": "xla", "xla-heap-spatial": "xla",
	"tflm-greedy": "tflm",
}

// rec is one repeat of a strategy (or allocator, for "bfc") with LB_load
// 1000; a footprint of 0 is a timeout.
func rec(w, s string, fp int64) results.Record {
	r := results.Record{Workload: w, N: 10, Subject: s, Kind: results.KindStrategy, Status: results.StatusOK,
		Footprint: fp, LBLoad: 1000, Ratio: float64(fp) / 1000}
	if s == "bfc" {
		r.Kind = results.KindAllocator
	}
	if fp == 0 {
		r.Status, r.Ratio = results.StatusTimeout, 0
	}
	return r
}

// TestBestPerRuntime checks that each (workload, runtime) bar is the
// runtime's best ok planner, that ties go to the planner that sorts first,
// that a runtime whose planners all failed is a failed bar, and that
// allocators and unmapped strategies are left out.
func TestBestPerRuntime(t *testing.T) {
	const w = "zoo/unet"
	for _, tc := range []struct {
		name string
		recs []results.Record
		want []string
	}{
		{"smallest wins", []results.Record{rec(w, "naive", 3000), rec(w, "greedy-by-size", 1200), rec(w, "xla-heap", 1100)},
			[]string{"zoo/unet tflite-gpu greedy-by-size+0 1.2", "zoo/unet xla xla-heap+0 1.1"}},
		{"tie goes to the first name", []results.Record{rec(w, "xla-heap-spatial", 1100), rec(w, "xla-heap", 1100)},
			[]string{"zoo/unet xla xla-heap+1 1.1"}},
		{"ties counted within the runtime", []results.Record{rec(w, "naive", 1100), rec(w, "greedy-by-size", 1100),
			rec(w, "xla-heap", 1100), rec(w, "xla-heap-spatial", 1200)},
			[]string{"zoo/unet tflite-gpu greedy-by-size+1 1.1", "zoo/unet xla xla-heap+0 1.1"}},
		{"a failed planner is passed over", []results.Record{rec(w, "greedy-by-size", 0), rec(w, "naive", 3000)},
			[]string{"zoo/unet tflite-gpu naive+0 3"}},
		{"all failed", []results.Record{rec(w, "tflm-greedy", 0), rec(w, "xla-heap", 1500)},
			[]string{"zoo/unet tflm × [timeout]", "zoo/unet xla xla-heap+0 1.5"}},
		{"allocators and unmapped strategies left out", []results.Record{rec(w, "bfc", 900), rec(w, "exec:./p", 900), rec(w, "naive", 3000)},
			[]string{"zoo/unet tflite-gpu naive+0 3"}},
		{"workloads in order, runtimes sorted", []results.Record{rec("zoo/b", "xla-heap", 1000), rec("zoo/b", "naive", 2000),
			rec("zoo/a", "tflm-greedy", 1000), rec("zoo/a", "xla-heap-spatial", 1300), rec("zoo/a", "xla-heap", 1400)},
			[]string{"zoo/b tflite-gpu naive+0 2", "zoo/b xla xla-heap+0 1", "zoo/a tflm tflm-greedy+0 1", "zoo/a xla xla-heap-spatial+0 1.3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			best, winner := bestPerRuntime(results.Aggregate(tc.recs, nil), runtimesOf, runtimeMeasure.value)
			var got []string
			for _, g := range best {
				k := [2]string{g.Workload, g.Subject}
				if g.OK == 0 {
					got = append(got, fmt.Sprintf("%s %s × %v", g.Workload, g.Subject, g.Failed))
					if _, ok := winner[k]; ok {
						t.Errorf("failed bar %v has a winner %v", k, winner[k])
					}
					continue
				}
				got = append(got, fmt.Sprintf("%s %s %s+%d %g", g.Workload, g.Subject, winner[k].subject, winner[k].ties, g.Ratio))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("bars =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// runtimeRecords is a small sweep of planners of three runtimes (two of
// tflite-gpu, two of xla, one of tflm) and an allocator on three
// workloads; tflm-greedy times out on the random DAG.
func runtimeRecords() []results.Record {
	var recs []results.Record
	for i, w := range []string{"zoo/resnet-50", "zoo/unet", "synthetic/random-dag?n=100&seed=1"} {
		d := int64(100 * i)
		tflm := 1050 + d
		if i == 2 {
			tflm = 0
		}
		recs = append(recs, rec(w, "naive", 4000), rec(w, "greedy-by-size", 1300+d), rec(w, "xla-heap", 1200),
			rec(w, "xla-heap-spatial", 1100+d), rec(w, "tflm-greedy", tflm), rec(w, "bfc", 2000))
	}
	return recs
}

// TestRuntimeFigure reads the SVGs back: one figure per workload group,
// the runtimes in the legend, one bar per ok (workload, runtime) in the
// runtime's colour, the winning planner over each bar of a runtime with
// several planners, × for tflm's timeout, and the caption.
func TestRuntimeFigure(t *testing.T) {
	dir := t.TempDir()
	files, err := WriteAll(dir, runtimeRecords(), Options{Kind: "runtime", Formats: []string{"svg"}, Runtimes: runtimesOf})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if want := []string{"runtime-zoo.svg", "runtime-zoo.md", "runtime-synthetic.svg", "runtime-synthetic.md"}; !slices.Equal(names, want) {
		t.Fatalf("files = %v, want %v", names, want)
	}
	// Runtimes sorted: tflite-gpu, tflm, xla.
	colour := map[string]string{"tflite-gpu": hex(Palette[0]), "tflm": hex(Palette[1]), "xla": hex(Palette[2])}
	for _, tc := range []struct {
		file  string
		texts []string
		bars  map[string]int
	}{
		{"runtime-zoo.svg", []string{"resnet-50", "unet", "tflite-gpu", "tflm", "xla",
			"greedy-by-size", "xla-heap-spatial", "xla-heap +1", "Best planner of each runtime", "footprint / LB_load"},
			map[string]int{"tflite-gpu": 2, "tflm": 2, "xla": 2}},
		{"runtime-synthetic.svg", []string{"random-dag n=100 s=1", "tflite-gpu", "tflm", "xla", "xla-heap",
			"greedy-by-size", "failed (timeout)"},
			map[string]int{"tflite-gpu": 1, "tflm": 0, "xla": 1}},
	} {
		file := filepath.Join(dir, tc.file)
		texts := svgTexts(t, file)
		for _, want := range tc.texts {
			if !slices.Contains(texts, want) {
				t.Errorf("%s lacks the text %q; has %q", tc.file, want, texts)
			}
		}
		for _, not := range []string{"naive", "bfc", "tflm-greedy"} {
			if slices.Contains(texts, not) {
				t.Errorf("%s names %q, which won nowhere or is no strategy of a runtime with a choice", tc.file, not)
			}
		}
		all := strings.Join(texts, " ")
		caption := "Each bar is the smallest footprint / LB_load among the runtime's planners in the sweep on that workload; " +
			strings.TrimSuffix(tc.file, ".svg") + ".md names the planner that reached it, as does the name over the bar"
		if tc.file == "runtime-zoo.svg" {
			caption += " (+k: k more of the runtime's planners tie with it; the name that sorts first is shown)"
		}
		if !strings.Contains(all, caption+".") {
			t.Errorf("%s: caption missing in %q", tc.file, all)
		}
		fills := svgFills(t, file)
		for rt, n := range tc.bars {
			// One filled square per bar, and the legend's.
			if got := fills[colour[rt]] - 1; got != n {
				t.Errorf("%s: %d bars of %s (%s), want %d", tc.file, got, rt, colour[rt], n)
			}
		}
	}
	// The table names every runtime's winner, tflm's too.
	data, err := os.ReadFile(filepath.Join(dir, "runtime-synthetic.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := `# Best planner of each runtime: synthetic

Each cell is the smallest footprint / LB_load among the runtime's planners in the sweep on the workload, and the planner that reached it (+k: k more of the runtime's planners tie with it); ✗ marks a runtime whose planners all failed, — one not run.

| workload | tflite-gpu | tflm | xla |
|---|---|---|---|
| random-dag n=100 s=1 | 1.5000 greedy-by-size | ✗ timeout | 1.2000 xla-heap |
`
	if string(data) != want {
		t.Errorf("runtime-synthetic.md =\n%s\nwant\n%s", data, want)
	}
	data, err = os.ReadFile(filepath.Join(dir, "runtime-zoo.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{"| resnet-50 | 1.3000 greedy-by-size | 1.0500 tflm-greedy | 1.1000 xla-heap-spatial |\n",
		"| unet | 1.4000 greedy-by-size | 1.1500 tflm-greedy | 1.2000 xla-heap +1 |\n"} {
		if !strings.Contains(string(data), row) {
			t.Errorf("runtime-zoo.md lacks the row %q:\n%s", row, data)
		}
	}
	// One runtime alone draws no runtime figure.
	only := map[string]string{"naive": "tflite-gpu", "greedy-by-size": "tflite-gpu"}
	if files, err := WriteAll(t.TempDir(), runtimeRecords(), Options{Kind: "runtime", Runtimes: only}); err != nil || len(files) != 0 {
		t.Errorf("one runtime: WriteAll = %v, %v; want nothing", files, err)
	}
}

// TestNoteFit: planners are named over bars at up to 6 pt, smaller where
// bars are narrow, and not at all below 3.5 pt (the table names them).
func TestNoteFit(t *testing.T) {
	notes := &barNotes{text: map[[2]string]string{{"w", "xla"}: "xla-heap-spatial"}}
	for _, tc := range []struct {
		size         Size
		ws, runtimes int
		want         float64
		fit          bool
	}{
		{Page, 2, 3, 6, true},
		{Page, 8, 10, 504 * 0.85 / 8 * 0.8 / 10 * 0.9, true},
		{Column, 8, 10, 252 * 0.85 / 8 * 0.8 / 10 * 0.9, false},
	} {
		size, room, fit := noteFit(notes, make([]string, tc.ws), make([]string, tc.runtimes), tc.size)
		if math.Abs(size-tc.want) > 1e-9 || fit != tc.fit || fit && (room <= 0 || room > 0.5) || !fit && room != 0 {
			t.Errorf("%s, %d workloads × %d runtimes: size %g, room %g, fit %v; want %g, fit %v",
				tc.size.Name, tc.ws, tc.runtimes, size, room, fit, tc.want, tc.fit)
		}
	}
}
