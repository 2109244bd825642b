package main

import (
	"encoding/json"
	"regexp"
	"slices"
	"testing"
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
