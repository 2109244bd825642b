// Package tflitemodels registers the usage records of real TensorFlow Lite
// models, MediaPipe's production mobile models, as workloads tflite/NAME.
//
// The records are derived by membench's own `.tflite` reader
// (workloads.ReadTFLiteModel: the operators of subgraph 0 are the tasks,
// constants are not planned) from the model files in ../shared/models/tflite,
// which stay there; data/NAME.json holds what was derived, and Models names
// each source file with its sha256.
//
// Each also takes storage= and precision=, as a `.tflite` file does
// (workloads.ReadTFLiteGPU, DESIGN §17): the records TFLite's GPU delegate
// would plan, as 2D or 3D textures, BHWC shapes or bytes.
// data/NAME.gpu.csv holds the model read with storage=bhwc (the delegate's
// runtime tensors, all FLOAT32 in these models, with their BHWC shapes),
// from which workloads.GPUFromBHWC lays out every storage.
//
// Both files are regenerated, and checked to be current whenever ../shared
// is present, by
//
//	go test ./workloads/tflitemodels -run TestDerived -update
package tflitemodels

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"

	"membench/workloads"
	"membench/workloads/derived"
)

//go:embed data/*.json data/*.gpu.csv
var data embed.FS

// params are the parameters every model takes.
var params = []workloads.ParamDoc{
	{Name: "storage", Default: "cpu", Doc: "cpu: the records TFLite's interpreter plans; or as TFLite's GPU delegate stores its tensors: " + strings.Join(workloads.GPUStorageNames()[1:], ", ") + " (DESIGN §17)"},
	{Name: "precision", Default: "f32", Doc: "the GPU delegate's float tensors: f32 or f16"},
}

// load returns model m's constructor.
func load(m Model) func(*workloads.Args) (*workloads.Problem, error) {
	// The records of a `.tflite`: planners that default by the model
	// format (TFLite Micro's 16-byte alignment) see one.
	cpu := derived.Loader(data, "data/"+m.Name+".json", workloads.FormatTFLiteModel)
	return func(a *workloads.Args) (*workloads.Problem, error) {
		o, err := workloads.ParseGPUOptions("tflite/"+m.Name, a.String("storage", ""), a.String("precision", ""))
		if err != nil || o.Storage == workloads.GPUNone {
			if err != nil {
				return nil, err
			}
			return cpu(a)
		}
		raw, err := fs.ReadFile(data, "data/"+m.Name+".gpu.csv")
		if err != nil {
			return nil, err
		}
		w, err := workloads.LoadBytes(raw, m.Name+".gpu.csv")
		if err != nil {
			return nil, err
		}
		return workloads.GPUFromBHWC(w.Problem, o)
	}
}

// Model is one derived model and its provenance.
type Model struct {
	Name    string // registered as tflite/Name
	File    string // the model file in ../shared/models/tflite
	SHA256  string // of File
	Package string // the npm package that publishes File (Apache-2.0)
}

// Models lists every derived model.
var Models = []Model{
	{"face-detection-short-range", "face_detection_short_range.tflite", "3bc182eb9f33925d9e58b5c8d59308a760f4adea8f282370e428c51212c26633", "@mediapipe/face_detection 0.4.1657300184"},
	{"face-detection-full-range", "face_detection_full_range.tflite", "99bf9494d84f50acc6617d89873f71bf6635a841ea699c17cb3377f9507cfec3", "@mediapipe/face_detection 0.4.1657300184"},
	{"selfie-segmentation", "selfie_segmentation.tflite", "8d13b7fae74af625c641226813616a2117bd6bca19eb3b75574621fc08557f27", "@mediapipe/selfie_segmentation 0.1.1675465747"},
	{"selfie-segmentation-landscape", "selfie_segmentation_landscape.tflite", "4aafe6223bb8dac6fac8ca8ed56852870a33051ef3f6238822d282a109962894", "@mediapipe/selfie_segmentation 0.1.1675465747"},
	{"hand-landmark-lite", "hand_landmark_lite.tflite", "d7fde8ac11f8ce03f8663775bfc323f4fc9f2a38062b4f4efa142874ef5b2a48", "@mediapipe/hands 0.4.1675469240"},
	{"hand-landmark-full", "hand_landmark_full.tflite", "8c026882c9ec059ce0f8e75266bee5a9a23c341a40e0000df755374d3d1b9b68", "@mediapipe/hands 0.4.1675469240"},
	{"pose-landmark-lite", "pose_landmark_lite.tflite", "f17bfbecadb61c3be1baa8b8d851cc6619c870a87167b32848ad20db306b9d61", "@mediapipe/pose 0.5.1675469404"},
	{"pose-landmark-full", "pose_landmark_full.tflite", "e9a5c5cb17f736fafd4c2ec1da3b3d331d6edbe8a0d32395855aeb2cdfd64b9f", "@mediapipe/pose 0.5.1675469404"},
}

func init() {
	for _, m := range Models {
		workloads.Register(workloads.Info{
			Name:   "tflite/" + m.Name,
			Doc:    fmt.Sprintf("MediaPipe %s (%s, sha256 %s…), usage records as TFLite's interpreter sees them, or its GPU delegate (storage=)", m.File, m.Package, m.SHA256[:12]),
			Params: params,
			New:    load(m),
		})
	}
}
