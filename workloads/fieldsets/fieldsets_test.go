package fieldsets

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"strings"
	"testing"

	"membench/internal/shippedtest"
	"membench/workloads"
)

// TestRegistered loads every shipped instance by name and checks its
// buffer count (idealloc's README table; the small set's files), its
// LB_load and its capacity (the small set's file names), and that its doc,
// which `membench list workloads` prints, names its source and provenance.
func TestRegistered(t *testing.T) {
	cases := []shippedtest.Instance{
		{Name: "idealloc/g-1", N: 816, LB: 3030937746, Cap: 0},
		{Name: "idealloc/s-1", N: 28526, LB: 1498635932, Cap: 0},
		{Name: "idealloc/y-1", N: 62185, LB: 497261190115, Cap: 0},
		{Name: "idealloc/resnet50", N: 1042, LB: 1515472556, Cap: 0},
		{Name: "idealloc/pangu-2-6b", N: 18692, LB: 5530099775, Cap: 0},
		{Name: "minimalloc-small/a", N: 5, LB: 6, Cap: 6},
		{Name: "minimalloc-small/b", N: 5, LB: 6, Cap: 6},
		{Name: "minimalloc-small/c", N: 5, LB: 8, Cap: 8},
		{Name: "minimalloc-small/d", N: 6, LB: 9, Cap: 9},
		{Name: "minimalloc-small/e", N: 5, LB: 12, Cap: 12},
		{Name: "minimalloc-small/f", N: 6, LB: 14, Cap: 14},
		{Name: "minimalloc-small/g", N: 6, LB: 7, Cap: 7},
	}
	if len(cases) != len(Sets) {
		t.Fatalf("%d registered instances, want %d", len(Sets), len(cases))
	}
	shippedtest.CheckRegistered(t, cases)
	for _, c := range cases {
		if info, _ := workloads.Lookup(c.Name); !strings.Contains(info.Doc, "@") || !strings.Contains(info.Doc, "provenance in workloads/fieldsets/data/") {
			t.Errorf("%s: doc %q names no source commit or provenance file", c.Name, info.Doc)
		}
	}
}

// TestSameAsShared checks that every shipped file, decompressed, is byte
// for byte the upstream copy in ../shared, licences included, and that each
// set ships its LICENSE and provenance README.
func TestSameAsShared(t *testing.T) {
	shared := map[string]string{ // data/ folder -> ../shared folder
		"idealloc":         "../../../shared/workloads/idealloc/",
		"minimalloc-small": "../../../shared/workloads/omnimalloc-small/",
	}
	upstream := map[string]string{ // file here -> path in ../shared
		"idealloc/G_1.csv.gz": "iopddl/G_1.csv", "idealloc/S_1.csv.gz": "iopddl/S_1.csv",
		"idealloc/Y_1.csv.gz": "iopddl/Y_1.csv", "idealloc/resnet50.csv.gz": "somas/resnet50.csv",
		"idealloc/pangu_2.6B.csv.gz": "somas/pangu_2.6B.csv",
	}
	files := []string{"idealloc/LICENSE", "minimalloc-small/LICENSE"}
	for _, s := range Sets {
		files = append(files, s.File)
	}
	for dir := range shared {
		if _, err := data.ReadFile("data/" + dir + "/README.md"); err != nil {
			t.Errorf("data/%s has no provenance README: %v", dir, err)
		}
	}
	for _, file := range files {
		dir, base, _ := strings.Cut(file, "/")
		root := shared[dir]
		if _, err := os.Stat(root); err != nil {
			t.Skipf("%s absent: %v", root, err)
		}
		src := base
		if u, ok := upstream[file]; ok {
			src = u
		}
		want, err := os.ReadFile(root + src)
		if err != nil {
			t.Fatal(err)
		}
		got, err := data.ReadFile("data/" + file)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(file, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(got))
			if err != nil {
				t.Fatalf("data/%s: %v", file, err)
			}
			if got, err = io.ReadAll(zr); err != nil {
				t.Fatalf("data/%s: %v", file, err)
			}
		}
		if !bytes.Equal(got, want) {
			t.Errorf("data/%s differs from %s%s", file, root, src)
		}
	}
}
