// Package minimalloc registers MiniMalloc's benchmark instances (google/
// minimalloc, ASPLOS'23), shipped in data/ with their Apache-2.0 notice, as
// workloads minimalloc/a … minimalloc/k (the eleven "challenging" instances)
// and minimalloc/example (the README's five-buffer example). Each is posed
// with the capacity encoded in its file name, as MiniMalloc poses it, so
// configs run on a fresh clone with nothing beside it.
package minimalloc

import (
	"embed"
	"fmt"
	"strings"

	"membench/workloads"
)

//go:embed data/*.csv
var data embed.FS

// Files maps each registered name to its embedded file.
var Files = map[string]string{
	"minimalloc/example": "example.12.csv",
}

func init() {
	for _, c := range "abcdefghijk" {
		Files["minimalloc/"+string(c)] = strings.ToUpper(string(c)) + ".1048576.csv"
	}
	for name, file := range Files {
		doc := fmt.Sprintf("MiniMalloc challenging instance %s, capacity 1 MiB", strings.TrimSuffix(file, ".1048576.csv"))
		if name == "minimalloc/example" {
			doc = "MiniMalloc's README example: 5 buffers, capacity 12 bytes"
		}
		workloads.Register(workloads.Info{Name: name, Doc: doc, New: loader(file)})
	}
}

// loader reads one embedded instance through the same reader and capacity
// rule as a file on disk.
func loader(file string) func(*workloads.Args) (*workloads.Problem, error) {
	return func(*workloads.Args) (*workloads.Problem, error) {
		raw, err := data.ReadFile("data/" + file)
		if err != nil {
			return nil, err
		}
		w, err := workloads.LoadBytes(raw, file)
		if err != nil {
			return nil, err
		}
		return w.Problem, nil
	}
}
