// Package fieldsets registers the research field's instance sets, shipped
// in data/ with their licences and provenance (data/*/README.md: source
// repository, commit and path of every file):
//
//   - idealloc/g-1, idealloc/s-1, idealloc/y-1 (IOPDDL problems) and
//     idealloc/resnet50, idealloc/pangu-2-6b (MindSpore SOMAS tensors):
//     idealloc's benchmarks (MIT), gzip-compressed, posed with no capacity;
//   - minimalloc-small/a … minimalloc-small/g: MiniMalloc's "small"
//     instances as OmniMalloc ships them (Apache-2.0), each posed with the
//     capacity its file name encodes, as MiniMalloc poses it.
//
// Every file is read through the same reader and capacity rule as a file
// on disk, so a run on a fresh clone needs nothing beside it.
package fieldsets

import (
	"embed"
	"fmt"
	"strings"

	"membench/workloads"
)

//go:embed data
var data embed.FS

// Set is one shipped instance.
type Set struct {
	// Name is the registered workload name.
	Name string
	// File is the path under data/.
	File string
	// Doc says what it is and where it came from.
	Doc string
}

const (
	idealloc = "idealloc's benchmark %s (MIT; github.com/cappadokes/idealloc@a21f84d5, benchmarks/%s); provenance in workloads/fieldsets/data/idealloc/README.md"
	small    = "MiniMalloc small instance %s, capacity %s (Apache-2.0; github.com/fpedd/omnimalloc@2e9cf4ed, external/minimalloc/small/%s); provenance in workloads/fieldsets/data/minimalloc-small/README.md"
)

// Sets lists every shipped instance in registration order.
var Sets = func() []Set {
	sets := []Set{
		{"idealloc/g-1", "idealloc/G_1.csv.gz", fmt.Sprintf(idealloc, "IOPDDL G_1: 816 buffers", "iopddl/G_1.csv")},
		{"idealloc/s-1", "idealloc/S_1.csv.gz", fmt.Sprintf(idealloc, "IOPDDL S_1: 28,526 buffers", "iopddl/S_1.csv")},
		{"idealloc/y-1", "idealloc/Y_1.csv.gz", fmt.Sprintf(idealloc, "IOPDDL Y_1: 62,185 buffers", "iopddl/Y_1.csv")},
		{"idealloc/resnet50", "idealloc/resnet50.csv.gz", fmt.Sprintf(idealloc, "MindSpore SOMAS ResNet-50: 1,042 buffers", "somas_tensors/resnet50.csv")},
		{"idealloc/pangu-2-6b", "idealloc/pangu_2.6B.csv.gz", fmt.Sprintf(idealloc, "MindSpore SOMAS PanGu-α 2.6B: 18,692 buffers", "somas_tensors/pangu_2.6B.csv")},
	}
	for _, f := range []string{"a.6.csv", "b.6.csv", "c.8.csv", "d.9.csv", "e.12.csv", "f.14.csv", "g.7.csv"} {
		parts := strings.Split(f, ".")
		sets = append(sets, Set{"minimalloc-small/" + parts[0], "minimalloc-small/" + f, fmt.Sprintf(small, parts[0], parts[1], f)})
	}
	return sets
}()

func init() {
	for _, s := range Sets {
		workloads.Register(workloads.Info{Name: s.Name, Doc: s.Doc, New: loader(s.File)})
	}
}

// loader reads one embedded file; the reader undoes the gzip compression
// and takes the capacity from the name without ".gz", as for a file.
func loader(file string) func(*workloads.Args) (*workloads.Problem, error) {
	return func(*workloads.Args) (*workloads.Problem, error) {
		raw, err := data.ReadFile("data/" + file)
		if err != nil {
			return nil, err
		}
		w, err := workloads.LoadBytes(raw, strings.TrimSuffix(file[strings.LastIndexByte(file, '/')+1:], ".gz"))
		if err != nil {
			return nil, err
		}
		return w.Problem, nil
	}
}
