package main

import (
	"encoding/json"
	"strings"
	"testing"

	"membench/allocators"
)

const settingsSnapshot = "../../workloads/testdata/pytorch/settings.pickle"

// TestReplaySnapshotSettings: a snapshot replays under its own recorded
// allocator_settings (expandable segments: the last request fits 40 MiB)
// unless the spec sets them (without: the first OOM is reported, broken
// down).
func TestReplaySnapshotSettings(t *testing.T) {
	r := expect(t, 0, nil, "replay", "--allocator", "torch-caching", "--device-memory", "40M", "--repeat", "1", settingsSnapshot)
	for _, want := range []string{
		"allocator settings  expandable_segments:True (recorded in the snapshot)\n",
		"device memory       41943040 B = 40.00 MiB\n",
		"OOMs                0\n",
		"at the peak         event 10: reserved 41943040 = requested 17825792 + internal 0 (rounding) + external 24117248 (free); largest free 14680064\n",
		"pools at the peak   large 41943040 reserved, 17825792 allocated\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("replay under the snapshot's settings lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "first OOM") {
		t.Errorf("no OOM, yet:\n%s", r.stdout)
	}

	r = expect(t, 0, nil, "replay", "--allocator", "torch-caching?alloc_conf=expandable_segments:False", "--device-memory", "40M", "--repeat", "1", settingsSnapshot)
	for _, want := range []string{
		"OOMs                1\n",
		"first OOM           at event 12, request of 6291456 B on stream 0: reserved 41943040, in use 26214400, internal 0, external 15728640, " +
			"largest free 4194304; pools: large 41943040 reserved, 26214400 allocated\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("replay with the settings overridden lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "allocator settings") {
		t.Errorf("settings overridden, yet reported applied:\n%s", r.stdout)
	}

	// Other allocators do not take PyTorch's settings.
	r = expect(t, 0, nil, "replay", "--allocator", "first-fit", "--repeat", "1", settingsSnapshot)
	if strings.Contains(r.stdout, "allocator settings") {
		t.Errorf("first-fit reports PyTorch's settings:\n%s", r.stdout)
	}
}

// TestReplayDeviceMemoryJSON checks the JSON breakdown at the peak and at
// each OOM, for an allocator without pools.
func TestReplayDeviceMemoryJSON(t *testing.T) {
	p := writeFile(t, "t.csv", "a,1,1000\na,2,3000\nf,1\na,3,4000\na,4,5000\n")
	r := expect(t, 0, nil, "replay", "--allocator", "first-fit", "--device-memory", "8K", "--format", "json", "--repeat", "1", p)
	var got struct {
		OOMs          int                       `json:"ooms"`
		DeviceMemory  int64                     `json:"device_memory"`
		Peak          allocators.Breakdown      `json:"peak"`
		OOMBreakdowns []allocators.OOMBreakdown `json:"oom_breakdowns"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("%v in %s", err, r.stdout)
	}
	// first-fit rounds to 256 bytes: 1024 + 3072, then 4096 at 4096
	// (8 KiB reached), then 5120 does not fit.
	all := func(res, alloc int64) []allocators.PoolBytes {
		return []allocators.PoolBytes{{Name: "all", Reserved: res, Allocated: alloc}}
	}
	wantPeak := allocators.Breakdown{Event: 4, Reserved: 8192, Requested: 7000, Internal: 168, External: 1024, LargestFree: 1024, Pools: all(8192, 7168)}
	wantOOM := allocators.OOMBreakdown{Breakdown: allocators.Breakdown{Event: 5, Reserved: 8192, Requested: 7000, Internal: 168, External: 1024,
		LargestFree: 1024, Pools: all(8192, 7168)}, ID: 4, Size: 5000}
	if got.OOMs != 1 || got.DeviceMemory != 8192 || !equalJSON(t, got.Peak, wantPeak) ||
		len(got.OOMBreakdowns) != 1 || !equalJSON(t, got.OOMBreakdowns[0], wantOOM) {
		t.Errorf("got %+v\nwant peak %+v, OOM %+v", got, wantPeak, wantOOM)
	}
}

func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return string(x) == string(y)
}

func TestReplayDeviceMemoryErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--allocator", "bfc", "--device-memory", "lots"}, `replay: --device-memory="lots": want a positive byte size, e.g. 16G`},
		{[]string{"--allocator", "bfc", "--device-memory", "0"}, `replay: --device-memory="0": want a positive byte size, e.g. 16G`},
		{[]string{"--allocator", "bfc?memory_limit=1G", "--device-memory", "2G"}, "replay: --device-memory and memory_limit in --allocator bfc?memory_limit=1G both set the capacity: give one"},
	} {
		expect(t, 2, []string{c.want}, append(append([]string{"replay"}, c.args...), settingsSnapshot)...)
	}
}

// TestReplaySnapshotBadSettings: settings torch-caching cannot take are
// bad input naming the snapshot, and alloc_conf overrides them.
func TestReplaySnapshotBadSettings(t *testing.T) {
	const bad = "../../workloads/testdata/pytorch/settings_bad.pickle"
	expect(t, 2, []string{"membench: replay: " + bad + `: recorded allocator_settings "expandable_segments:yes" that torch-caching cannot take ` +
		`(override them with alloc_conf=): torch-caching: alloc_conf="expandable_segments:yes": Expected a single True/False argument for expandable_segments`},
		"replay", "--allocator", "torch-caching", bad)
	expect(t, 0, nil, "replay", "--allocator", "torch-caching?alloc_conf=expandable_segments:True", "--repeat", "1", bad)
}
