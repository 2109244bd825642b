package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

const snapDir = "../../workloads/testdata/pytorch/"

// TestReplayRecordedOOMs: a snapshot's oom entries are reported as
// recorded OOMs, in text and JSON, apart from the replay's own; other
// workloads have no such row or field.
func TestReplayRecordedOOMs(t *testing.T) {
	r := expect(t, 0, nil, "replay", "--allocator", "torch-caching", "--repeat", "1", snapDir+"basic.pickle")
	const rows = "OOMs                0\nrecorded OOMs       1 (oom entries in the snapshot: requests PyTorch failed, not replayed)\n"
	if !strings.Contains(r.stdout, rows) || r.stderr != "" {
		t.Errorf("stdout lacks %q (or stderr is not empty):\n%s\nstderr:\n%s", rows, r.stdout, r.stderr)
	}
	r = expect(t, 0, nil, "replay", "--allocator", "torch-caching", "--repeat", "1", "--format", "json", snapDir+"basic.pickle")
	var got struct {
		OOMs         int  `json:"ooms"`
		RecordedOOMs *int `json:"recorded_ooms"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got.OOMs != 0 || got.RecordedOOMs == nil || *got.RecordedOOMs != 1 {
		t.Errorf("ooms %d, recorded_ooms %v; want 0 and 1", got.OOMs, got.RecordedOOMs)
	}
	p := writeFile(t, "t.csv", "a,1,1000\nf,1\n")
	r = expect(t, 0, nil, "replay", "--allocator", "first-fit", "--repeat", "1", p)
	if strings.Contains(r.stdout, "recorded OOMs") {
		t.Errorf("a trace file has recorded OOMs:\n%s", r.stdout)
	}
	r = expect(t, 0, nil, "replay", "--allocator", "first-fit", "--repeat", "1", "--format", "json", p)
	if strings.Contains(r.stdout, "recorded_ooms") {
		t.Errorf("a trace file has recorded_ooms:\n%s", r.stdout)
	}
}

// TestSnapshotWarnings: what the reader skipped goes to stderr, once per
// unknown action, from every command that loads a workload; the command
// still succeeds.
func TestSnapshotWarnings(t *testing.T) {
	const file = snapDir + "unknown_action.pickle"
	want := "membench: warning: " + file + `: skipped 2 trace entries with unknown action "teleport" (first at device_traces[0][2])` + "\n" +
		"membench: warning: " + file + `: skipped 1 trace entry with unknown action "warp" (first at device_traces[0][4])` + "\n"
	for _, args := range [][]string{
		{"replay", "--allocator", "first-fit", "--repeat", "1", file},
		{"plan", "--strategy", "greedy-by-size", file},
		{"gen", file},
	} {
		r := expect(t, 0, nil, args...)
		if r.stderr != want {
			t.Errorf("%q: stderr\n%s\nwant\n%s", args, r.stderr, want)
		}
	}
	// A sweep warns too, once, before its cells run.
	r := expect(t, 0, nil, "run", "--workloads", file, "--strategies", "naive", "--allocators", "bump",
		"--repeats", "1", "--out", filepath.Join(t.TempDir(), "out"))
	if !strings.Contains(r.stderr, want) {
		t.Errorf("run: stderr\n%s\nlacks\n%s", r.stderr, want)
	}
}

// TestSnapshotDevice: a multi-device snapshot needs ?device=N.
func TestSnapshotDevice(t *testing.T) {
	const file = snapDir + "two_devices.pickle"
	expect(t, 2, []string{"membench: " + file + ": trace events on 2 devices (0, 1): choose one with ?device=N\n"},
		"replay", "--allocator", "first-fit", file)
	r := expect(t, 0, nil, "replay", "--allocator", "first-fit", "--repeat", "1", file+"?device=1")
	if want := "workload            " + file + "?device=1 (1 events, 1 allocation requests)\n"; !strings.Contains(r.stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
	}
}
