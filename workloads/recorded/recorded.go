// Package recorded registers workloads recorded from real PyTorch runs as
// recorded/MODEL/KIND, KIND one of infer (one inference pass, batch 1),
// train (one training step: forward, backward, SGD step, batch 2) and graph
// (the static graph: torch.fx with shape propagation, batch 1).
//
// The eager traces are the CPU allocator's own calls (posix_memalign and
// free from libc10), captured on one thread by scripts/record/record.py,
// which wrote every file in data/ with its provenance in its header
// (torch and torchvision versions, model, batch, dtype, command, date).
// They are regenerated with
//
//	/usr/bin/python3 scripts/record/record.py MODEL --out /tmp/rec && gzip -9n /tmp/rec/*
//
// for each model of Models (Debian's python3-torch and python3-torchvision).
package recorded

import (
	"embed"
	"fmt"
	"strings"

	"membench/workloads"
)

//go:embed data/*.gz
var data embed.FS

// Models lists the recorded models: membench name and recorder name.
var Models = [][2]string{
	{"resnet50", "resnet50"},
	{"mobilenet-v2", "mobilenet-v2"},
	{"mobilenet-v3-large", "mobilenet-v3-large"},
	{"efficientnet-b0", "efficientnet-b0"},
	{"inception-v3", "inception-v3"},
	{"densenet121", "densenet121"},
	{"vit-b-16", "vit-b-16"},
	{"convnext-tiny", "convnext-tiny"},
	{"transformer-encoder", "transformer-encoder"},
}

// Kinds are the recordings of each model and their files' suffixes.
var Kinds = [][2]string{{"infer", ".infer.trace.gz"}, {"train", ".train.trace.gz"}, {"graph", ".graph.json.gz"}}

func init() {
	for _, m := range Models {
		for _, k := range Kinds {
			file := m[1] + k[1]
			if _, err := data.Open("data/" + file); err != nil {
				continue // not recorded: see the package doc
			}
			workloads.Register(workloads.Info{
				Name: "recorded/" + m[0] + "/" + k[0],
				Doc:  doc(file),
				New:  loader(file),
			})
		}
	}
}

// doc says what a recording is without reading it: every membench process
// registers all of them at start.
func doc(file string) string {
	kind := "eager trace (CPU allocator calls)"
	if strings.HasSuffix(file, ".json.gz") {
		kind = "static graph (torch.fx)"
	}
	return fmt.Sprintf("PyTorch %s, recorded by scripts/record; provenance in workloads/recorded/data/%s", kind, file)
}

func load(file string) (*workloads.Workload, error) {
	raw, err := data.ReadFile("data/" + file)
	if err != nil {
		return nil, err
	}
	return workloads.LoadBytes(raw, strings.TrimSuffix(file, ".gz"))
}

func loader(file string) func(*workloads.Args) (*workloads.Problem, error) {
	return func(*workloads.Args) (*workloads.Problem, error) {
		w, err := load(file)
		if err != nil {
			return nil, err
		}
		return w.Problem, nil
	}
}
