package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"membench/internal/tflitebuild"
)

// statefulFile writes tflitebuild.Stateful, a model with a variable
// tensor: input (10 B, task 0), hidden (20 B, tasks 0-1), output (4 B,
// task 1) and a 40-byte state, to a temporary .tflite file.
func statefulFile(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "stateful.tflite")
	if err := os.WriteFile(path, tflitebuild.Stateful().Build(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPlanArenaAndPersistent: a .tflite planned by a TFLite Micro planner
// is rounded to TFLite Micro's 16 bytes unless --align says otherwise;
// plan reports the runtime's arena beside the footprint and the variable
// tensor's bytes apart from both.
func TestPlanArenaAndPersistent(t *testing.T) {
	stateful := statefulFile(t)
	type out struct {
		Footprint  int64   `json:"footprint"`
		Arena      int64   `json:"arena"`
		Persistent int64   `json:"persistent"`
		Offsets    []int64 `json:"offsets"`
	}
	cases := []struct {
		args []string
		want out
	}{
		// Rounded 16, 32, 16: hidden (32) first, then the tie goes to the
		// later buffer, output: hidden 0, output above it at 32, input
		// (task 0, beside hidden only) at 32. Arena 32+16 = 48; footprint
		// max(32+10, 20, 32+4) = 42.
		{[]string{"--strategy", "tflm-greedy"}, out{42, 48, 40, []int64{32, 0, 32}}},
		// --align 1: sizes as given: hidden 0, input 20, output 20.
		{[]string{"--strategy", "tflm-greedy", "--align", "1"}, out{30, 0, 40, []int64{20, 0, 20}}},
		// Linear: 0, 16, 48; arena 64, footprint 52.
		{[]string{"--strategy", "tflm-linear"}, out{52, 64, 40, []int64{0, 16, 48}}},
	}
	for _, c := range cases {
		args := append(append([]string{"plan"}, c.args...), "--format", "json", stateful)
		r := expect(t, 0, nil, args...)
		var got out
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if got.Footprint != c.want.Footprint || got.Arena != c.want.Arena || got.Persistent != c.want.Persistent ||
			!slices.Equal(got.Offsets, c.want.Offsets) {
			t.Errorf("%q: got %+v, want %+v", args, got, c.want)
		}
	}
	r := expect(t, 0, nil, "plan", "--strategy", "tflm-greedy", stateful)
	for _, line := range []string{
		"arena (runtime)        48 bytes (48 B): what the runtime asks for, sizes rounded up\n",
		"persistent             40 bytes of variable tensors, outside the planned arena\n",
	} {
		if !strings.Contains(r.stdout, line) {
			t.Errorf("plan's text lacks %q:\n%s", line, r.stdout)
		}
	}
	// Without variables or rounding there are neither lines nor fields.
	r = expect(t, 0, nil, "plan", "--strategy", "tflm-greedy", "--format", "json", "--align", "1", "synthetic/chain")
	if strings.Contains(r.stdout, "arena") || strings.Contains(r.stdout, "persistent") {
		t.Errorf("arena or persistent where there is none: %s", r.stdout)
	}
}

// TestPlanOfflinePlan: a .tflite with TFLite Micro's offline plan
// (OfflineMemoryAllocation metadata) keeps it under tflm-greedy, which
// places the offline buffers first and the others around them; the
// variable with an offline offset is planned in the arena, not kept
// persistent. tflm-linear refuses it, as TFLite Micro's linear planner
// fails on an offline offset.
func TestPlanOfflinePlan(t *testing.T) {
	path := filepath.Join(t.TempDir(), "offline.tflite")
	// input, weights, state, hidden, output: state at 0, hidden at 64.
	m := tflitebuild.Stateful().WithOfflinePlan([]int32{-1, -1, 0, 64, -1})
	if err := os.WriteFile(path, m.Build(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := expect(t, 0, nil, "plan", "--strategy", "tflm-greedy", "--format", "json", path)
	var got struct {
		Footprint  int64   `json:"footprint"`
		Arena      int64   `json:"arena"`
		Persistent int64   `json:"persistent"`
		Offsets    []int64 `json:"offsets"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	// Rounded: input 16, state 48, hidden 32, output 16. state 0 and
	// hidden 64 first; then output (the later of the equal sizes) below
	// hidden at 0, input between state and hidden at 48. Arena 64+32.
	if want := []int64{48, 0, 64, 0}; !slices.Equal(got.Offsets, want) || got.Footprint != 84 || got.Arena != 96 || got.Persistent != 0 {
		t.Errorf("got %+v, want offsets %v, footprint 84, arena 96, no persistent bytes", got, want)
	}
	r = expect(t, 1, nil, "plan", "--strategy", "tflm-linear", path)
	if !strings.Contains(r.stderr, "tflm-linear: fixed offsets are not supported") {
		t.Errorf("tflm-linear: %s", r.stderr)
	}
}
