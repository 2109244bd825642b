// Package onnxmodels registers the usage records of ONNX models exported
// from PyTorch as workloads onnx/NAME.
//
// scripts/onnx/export.py exports each model with torch.onnx.export
// (Debian's python3-torch, opset 17, batch 1, static shapes), fills in
// value_info with onnx.shape_inference and checks it with onnx.checker;
// the .onnx files stay out of the repository. The records are derived by
// membench's own `.onnx` reader (workloads.ReadONNXModel: the nodes are the
// tasks, weights and folded constants are not planned); data/NAME.json
// holds what was derived, and Models names each source file with its
// sha256. They are regenerated, and checked to be current whenever the
// files are present (in ../shared/models/onnx, or the folder
// MEMBENCH_ONNX_DIR names), by
//
//	/usr/bin/python3 scripts/onnx/export.py --out /tmp/onnx
//	MEMBENCH_ONNX_DIR=/tmp/onnx go test ./workloads/onnxmodels -run TestDerived -update
package onnxmodels

import (
	"embed"
	"fmt"

	"membench/workloads"
	"membench/workloads/derived"
)

//go:embed data/*.json
var data embed.FS

// Model is one derived model and its provenance.
type Model struct {
	Name   string // registered as onnx/Name; the file is Name.onnx
	SHA256 string // of Name.onnx
	Source string // what scripts/onnx/export.py exported
}

// Exporter is what wrote the files whose sha256 Models records.
const Exporter = "scripts/onnx/export.py: torch 1.13.1 (Debian python3-torch 1.13.1+dfsg-4), torchvision 0.14.1, onnx 1.12.0, opset 17"

// Models lists every derived model.
var Models = []Model{
	{"resnet-50", "282050eb29d4a9eecc010a21f3fc6f25a8988347841edc09e47c9c1ad19f9b3e", "torchvision resnet50, 1x3x224x224 float32"},
	{"mobilenet-v2", "424ea2419e22212054e81af3689fa9733db8718a9d2813c4681da4664d0d3a26", "torchvision mobilenet_v2, 1x3x224x224 float32"},
	{"bert-base", "b640e319fbb0ec61d540d62f17c295a6ab304f5311ce7dfe41eb10a641bb83c7", "a BERT-base-shaped encoder (12 layers, hidden 768, 12 heads, FFN 3072), 128 tokens, float32"},
}

func init() {
	for _, m := range Models {
		workloads.Register(workloads.Info{
			Name: "onnx/" + m.Name,
			Doc:  fmt.Sprintf("ONNX export of %s (scripts/onnx/export.py, sha256 %s…), usage records as membench's .onnx reader sees them", m.Source, m.SHA256[:12]),
			New:  derived.Loader(data, "data/"+m.Name+".json", workloads.FormatONNXModel),
		})
	}
}
