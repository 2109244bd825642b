package plot

import (
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"membench/results"
	"membench/workloads"
)

func checkPNG(t *testing.T, file string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	w, h := PixelSize()
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("%s is %dx%d, want %dx%d", file, b.Dx(), b.Dy(), w, h)
	}
}

func sweepRecords() []results.Record {
	var recs []results.Record
	for _, w := range []struct {
		spec string
		n    int
	}{{"zoo/resnet-50", 100}, {"zoo/unet", 50}, {"synthetic/random-dag?n=100", 100},
		{"synthetic/random-dag?n=1000", 1000}, {"synthetic/random-dag?n=10000", 10000},
		{"synthetic/random-dag?n=300", 300}, {"synthetic/random-dag?n=3000", 3000}} {
		for i, s := range []string{"naive", "greedy-by-size"} {
			recs = append(recs, results.Record{Workload: w.spec, N: w.n, Subject: s, Kind: results.KindStrategy,
				Status: results.StatusOK, Footprint: int64(1000 * (2 - i)), LBLoad: 900, Ratio: float64(2-i) * 1000 / 900,
				TimesNs: []float64{float64(w.n * (i + 1)), float64(w.n*(i+1)) * 1.1}})
		}
		recs = append(recs, results.Record{Workload: w.spec, N: w.n, Subject: "bfc", Kind: results.KindAllocator,
			Status: results.StatusOK, Footprint: 2000, LBLoad: 900, Ratio: 2000.0 / 900, TimesNs: []float64{50}})
	}
	return recs
}

func TestWriteAll(t *testing.T) {
	dir := t.TempDir()
	files, err := WriteAll(dir, sweepRecords(), "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
		checkPNG(t, f)
	}
	want := []string{"distribution-synthetic-random-dag.png", "footprint-allocators-synthetic.png",
		"footprint-allocators-zoo.png", "footprint-synthetic.png", "footprint-zoo.png", "scaling.png"}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Errorf("files = %v, want %v", names, want)
	}
	// One kind draws only its own figures.
	only, err := WriteAll(t.TempDir(), sweepRecords(), "scaling")
	if err != nil || len(only) != 1 || filepath.Base(only[0]) != "scaling.png" {
		t.Errorf("WriteAll(scaling) = %v, %v; want scaling.png alone", only, err)
	}
}

func TestLayoutAndTimeline(t *testing.T) {
	dir := t.TempDir()
	bufs := []workloads.Buffer{{ID: 0, Size: 16, First: 0, Last: 1}, {ID: 1, Size: 8, First: 1, Last: 2}, {ID: 2, Size: 0, First: 2, Last: 2}}
	if err := Layout(filepath.Join(dir, "layout.png"), bufs, []int64{0, 16, 0}, "layout"); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, filepath.Join(dir, "layout.png"))
	pts := []TimelinePoint{{16, 256}, {24, 512}, {8, 512}, {0, 512}}
	if err := Timeline(filepath.Join(dir, "timeline.png"), pts, "timeline"); err != nil {
		t.Fatal(err)
	}
	checkPNG(t, filepath.Join(dir, "timeline.png"))
}
