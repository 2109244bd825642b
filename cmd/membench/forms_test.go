package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// The problem forms (DESIGN §15) through the commands: gen writes them
// in the formats that hold them and refuses the others; plan and
// validate report memory spaces one by one.

func TestGenForms(t *testing.T) {
	const csv = "testdata/forms/forms.csv"
	want, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	if r := expect(t, 0, nil, "gen", "--format", "minimalloc", csv); r.stdout != string(want) {
		t.Errorf("MiniMalloc round trip:\n%s\nwant\n%s", r.stdout, want)
	}
	r := expect(t, 0, nil, "gen", "--format", "json", csv)
	for _, w := range []string{
		`{"id": 0, "label": "a", "size": 64, "first": 0, "last": 9, "gaps": [{"first": 5, "last": 9, "window": [0, 16]}]}`,
		`{"id": 1, "label": "b", "size": 32, "first": 6, "last": 8, "align": 16}`,
		`{"id": 2, "label": "c", "size": 16, "first": 0, "last": 3, "offset": 64, "hint": 0}`,
	} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("gen --format json lacks %s:\n%s", w, r.stdout)
		}
	}
	// Back from JSON to MiniMalloc: the same file.
	js := t.TempDir() + "/forms.json"
	if err := os.WriteFile(js, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := expect(t, 0, nil, "gen", "--format", "minimalloc", js); r.stdout != string(want) {
		t.Errorf("JSON to MiniMalloc:\n%s\nwant\n%s", r.stdout, want)
	}
	expect(t, 2, []string{"membench: the TFLite records format cannot hold per-buffer alignment, gaps, fixed offsets, hints: write the problem as membench JSON, which holds every form"},
		"gen", "--format", "tflite", csv)
	expect(t, 2, []string{"membench: a trace cannot hold hints, memory spaces"}, "gen", "--format", "trace", "testdata/forms/spaces.json")
	expect(t, 2, []string{"membench: the MiniMalloc format cannot hold memory spaces"}, "gen", "--format", "minimalloc", "testdata/forms/spaces.json")
}

// TestPlanLabels: a problem whose MiniMalloc ids are not numbers gets
// its plan back under those ids, and validate reads that plan.
func TestPlanLabels(t *testing.T) {
	r := expect(t, 0, nil, "plan", "--strategy", "exact", "--format", "csv", "testdata/forms/forms.csv")
	if want := "id,offset\na,0\nb,16\nc,64\nd,96\n"; r.stdout != want {
		t.Errorf("plan --format csv:\n%s\nwant\n%s", r.stdout, want)
	}
	plan := t.TempDir() + "/plan.csv"
	if err := os.WriteFile(plan, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := expect(t, 0, nil, "validate", "--plan", plan, "testdata/forms/forms.csv"); !strings.Contains(r.stdout, "valid                  yes\n") {
		t.Errorf("validate:\n%s", r.stdout)
	}
	expect(t, 2, []string{`forms-numbered-plan.csv:2: id "0": not a buffer id of the workload`},
		"validate", "--plan", "testdata/forms/forms-numbered-plan.csv", "testdata/forms/forms.csv")
}

func TestValidateForms(t *testing.T) {
	r := expect(t, 0, nil, "validate", "--plan", "testdata/forms/forms-plan.csv", "testdata/forms/forms.csv")
	if !strings.Contains(r.stdout, "forms                  per-buffer alignment, gaps, fixed offsets, hints\n") ||
		!strings.Contains(r.stdout, "lower bound (LB_load)  88 bytes  ratio 1.1818\n") {
		t.Errorf("validate:\n%s", r.stdout)
	}
	expect(t, 1, []string{"invalid plan: buffers 0 and 1 overlap where both use memory: buffer 0 at offset 0 needs 16 bytes below buffer 1 at offset 0, which needs 32 below it"},
		"validate", "--plan", "testdata/forms/forms-bad-plan.csv", "testdata/forms/forms.csv")
	r = expect(t, 0, nil, "validate", "--plan", "testdata/forms/spaces-plan.csv", "testdata/forms/spaces.json")
	for _, w := range []string{
		"footprint              3840 bytes (3.75 KiB)\n",
		"  space sram           3072 bytes (3.00 KiB)  LB_load 3072 bytes  ratio 1.0000  capacity 4096 bytes\n",
		"  space dram           768 bytes (768 B)  LB_load 768 bytes  ratio 1.0000\n",
	} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("validate lacks %q:\n%s", w, r.stdout)
		}
	}
}

func TestPlanSpaces(t *testing.T) {
	// Spaces are planned apart by any strategy; hints are advice.
	r := expect(t, 0, nil, "plan", "--strategy", "offset-greedy-by-size", "--format", "json", "testdata/forms/spaces.json")
	var out planOutput
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if out.Forms != "hints, memory spaces" || len(out.Spaces) != 2 || out.Spaces[0].Name != "sram" || out.Spaces[0].LBLoad != 3072 ||
		out.Spaces[0].Capacity != 4096 || out.Spaces[1].LBLoad != 768 || out.Footprint != out.Spaces[0].Footprint+out.Spaces[1].Footprint ||
		out.LowerBound != 3840 {
		t.Errorf("plan --format json: %+v", out)
	}
	r = expect(t, 0, nil, "plan", "--strategy", "greedy-by-size", "testdata/forms/spaces.json")
	if !strings.Contains(r.stdout, "forms                  hints, memory spaces\n") || !strings.Contains(r.stdout, "  space sram ") || !strings.Contains(r.stdout, "  space dram ") {
		t.Errorf("plan:\n%s", r.stdout)
	}
}
