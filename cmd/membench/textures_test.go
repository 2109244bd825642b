package main

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"membench/workloads"
)

// TestPlanTextures checks `plan` on texture and BHWC records against
// LiteRT's own assignments of the same records (memory_management_test.cc
// at f67457790c9c: Model.UInt2Records, Model.UInt3Records,
// Model.BHWCRecords), and TFLite's refusal of a strategy without a
// variant for the size type.
func TestPlanTextures(t *testing.T) {
	r := expect(t, 0, nil, "plan", "--strategy", "greedy-in-order", "testdata/textures/uint2.csv")
	checkGolden(t, "plan-greedy-in-order-uint2.txt", maskTimes(r.stdout))
	for _, tc := range []struct {
		file, strategy, typ string
		elem                int64
		ids                 []int
		shapes              [][]int64
	}{
		{"uint2.csv", "greedy-in-order", "2d", 8, []int{0, 1, 2, 0, 3, 1, 2, 0, 3}, [][]int64{{2, 8}, {2, 8}, {1, 12}, {8, 2}}},
		{"uint2.csv", "equality", "2d", 8, []int{0, 1, 2, 0, 3, 1, 4, 0, 5}, [][]int64{{2, 8}, {2, 8}, {1, 12}, {8, 2}, {1, 8}, {4, 1}}},
		{"uint3.csv", "greedy-in-order", "3d", 16, []int{0, 1, 0, 2, 1, 3, 2, 0, 1}, [][]int64{{1, 2, 8}, {4, 3, 2}, {2, 4, 1}, {8, 1, 2}}},
		{"bhwc.csv", "equality", "bhwc", 4, []int{0, 1, 2, 1, 3, 0, 4, 5, 2},
			[][]int64{{1, 1, 2, 8}, {1, 1, 2, 8}, {1, 1, 1, 16}, {1, 1, 8, 2}, {1, 16, 1, 1}, {16, 1, 1, 1}}},
	} {
		r := expect(t, 0, nil, "plan", "--format", "json", "--strategy", tc.strategy, "testdata/textures/"+tc.file)
		var out planOutput
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatal(err)
		}
		if out.SizeType != tc.typ || out.ElementSize != tc.elem || out.ObjectIDs == nil || !slices.Equal(*out.ObjectIDs, tc.ids) ||
			!slices.EqualFunc(out.ObjectShapes, tc.shapes, slices.Equal) {
			t.Errorf("%s %s: %s", tc.file, tc.strategy, r.stdout)
		}
	}
	expect(t, 1, []string{"greedy-by-size: 2d sizes: MemoryStrategy is not supported with current tensor size type."},
		"plan", "--strategy", "greedy-by-size", "testdata/textures/uint2.csv")
	expect(t, 1, []string{"greedy-in-order: bhwc sizes: MemoryStrategy is not supported with current tensor size type."},
		"plan", "--strategy", "greedy-in-order", "testdata/textures/bhwc.csv")
	r = expect(t, 0, nil, "list", "strategies")
	for _, want := range []string{
		`(?m)^  equality .*\n    sizes .*: bytes, 2d, 3d, bhwc$`,
		`(?m)^  greedy-in-order .*\n    sizes .*: bytes, 2d, 3d$`,
		`(?m)^  naive .*\n    sizes .*: bytes, 2d, 3d, bhwc$`,
	} {
		if !regexp.MustCompile(want).MatchString(r.stdout) {
			t.Errorf("list strategies lacks %s", want)
		}
	}
}

// TestPlanTextureModel plans a real model's tensors as TFLite's GPU
// delegate would hold them in 2D textures (MediaPipe's selfie
// segmentation, storage=texture2d) with greedy-in-order: the registered
// workload's assignment is the golden, the `.tflite` file gives the same,
// and the assignment is checked here apart from plan's own validation:
// each tensor's object covers it in both dimensions, and tensors whose
// lifetimes overlap never share an object.
func TestPlanTextureModel(t *testing.T) {
	const spec = "tflite/selfie-segmentation?storage=texture2d"
	r := expect(t, 0, nil, "plan", "--strategy", "greedy-in-order", spec)
	reg := maskTimes(r.stdout)
	checkGolden(t, "plan-greedy-in-order-selfie-texture2d.txt", reg)

	r = expect(t, 0, nil, "plan", "--format", "json", "--strategy", "greedy-in-order", spec)
	var out planOutput
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	w, err := workloads.Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	p := w.Problem
	if out.SizeType != "2d" || out.ElementSize != 16 || out.ObjectIDs == nil || len(*out.ObjectIDs) != p.Len() {
		t.Fatalf("plan: %s", r.stdout)
	}
	ids := *out.ObjectIDs
	for i, b := range p.Buffers {
		obj := out.ObjectShapes[ids[i]]
		if obj[0] < p.Shapes[i][0] || obj[1] < p.Shapes[i][1] {
			t.Errorf("tensor %d (%v) in object %d of %v", i, p.Shapes[i], ids[i], obj)
		}
		for j, c := range p.Buffers[:i] {
			if ids[i] == ids[j] && b.First <= c.Last && c.First <= b.Last {
				t.Errorf("tensors %d and %d overlap in time and share object %d", j, i, ids[i])
			}
		}
	}

	const file = "../../../shared/models/tflite/selfie_segmentation.tflite"
	if _, err := os.Stat(file); err != nil {
		t.Skipf("%s absent: %v", file, err)
	}
	r = expect(t, 0, nil, "plan", "--strategy", "greedy-in-order", file+"?storage=texture2d")
	_, fromFile, _ := strings.Cut(maskTimes(r.stdout), "\n")
	if _, want, _ := strings.Cut(reg, "\n"); fromFile != want {
		t.Errorf("the .tflite file's plan differs from the registered workload's:\n%s\nwant\n%s", fromFile, want)
	}
}
