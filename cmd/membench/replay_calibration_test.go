package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"membench/allocators"
)

// TestReplayCalibration: replay of a snapshot prints the recording's
// figures beside its own, and where their segments part, in text and
// JSON; other workloads have no calibration.
func TestReplayCalibration(t *testing.T) {
	r := expect(t, 0, nil, "replay", "--allocator", "torch-caching", "--repeat", "1", snapDir+"mid_run.pickle")
	const rows = "calibration         peak reserved 44040192 B = 42.00 MiB recorded, 44040192 B = 42.00 MiB replayed (+0.00%)\n" +
		"                    at the start: 44040192 B = 42.00 MiB reserved, replayed from that cache\n" +
		"                    segments: 1 allocs, 1 frees recorded (1 empty_cache() call); 1 allocs, 1 frees replayed\n" +
		"                    segment allocs and frees as recorded (kind, size, order)\n"
	if !strings.Contains(r.stdout, rows) {
		t.Errorf("stdout lacks\n%s\n%s", rows, r.stdout)
	}
	// The last segment_free is the release of a request that failed
	// (an oom entry follows): not replayed.
	r = expect(t, 0, nil, "replay", "--allocator", "torch-caching", "--repeat", "1", snapDir+"empty_cache.pickle")
	const departs = "                    departs at segment event 5: recorded segment free of 31457280 B (trace entry 14, before event 8), replayed none\n"
	if !strings.Contains(r.stdout, departs) {
		t.Errorf("stdout lacks\n%s\n%s", departs, r.stdout)
	}
	r = expect(t, 0, nil, "replay", "--allocator", "first-fit", "--repeat", "1", snapDir+"mid_run.pickle")
	const notCompared = "                    at the start: 44040192 B = 42.00 MiB reserved; the replay starts from an empty cache (the allocator takes no recorded cache)\n" +
		"                    segments: 1 allocs, 1 frees recorded (1 empty_cache() call)\n" +
		"                    not compared: the allocator does not report its segments\n"
	if !strings.Contains(r.stdout, notCompared) {
		t.Errorf("stdout lacks\n%s\n%s", notCompared, r.stdout)
	}

	cal := replayCalibration(t, snapDir+"empty_cache.pickle")
	if cal == nil || cal.RecordedPeakReserved != 30<<20 || cal.PeakReserved != 30<<20 || cal.RecordedEmptyCaches != 2 ||
		cal.SegmentFrees == nil || *cal.SegmentFrees != 2 || cal.Departure == nil || cal.Departure.Index != 5 ||
		cal.Departure.Replayed != nil || cal.Departure.Recorded == nil || cal.Departure.Recorded.Entry != 14 {
		t.Errorf("calibration %+v", cal)
	}

	p := writeFile(t, "t.csv", "a,1,1000\nf,1\n")
	r = expect(t, 0, nil, "replay", "--allocator", "torch-caching", "--repeat", "1", p)
	if strings.Contains(r.stdout, "calibration") {
		t.Errorf("a trace file has a calibration:\n%s", r.stdout)
	}
}

// replayCalibration returns the calibration replay --format json prints
// for torch-caching on file.
func replayCalibration(t *testing.T, file string) *allocators.Calibration {
	t.Helper()
	r := expect(t, 0, nil, "replay", "--allocator", "torch-caching", "--repeat", "1", "--format", "json", file)
	var got struct {
		Calibration *allocators.Calibration `json:"calibration"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	return got.Calibration
}

// TestReplayRealSnapshots: the four snapshots recorded on GPUs replay
// under torch-caching with the recorded peak of reserved bytes, and their
// segment allocations and frees as recorded. Two start mid-run (magma27
// from 216 segments; the forward ones from segments their trace never
// allocates).
func TestReplayRealSnapshots(t *testing.T) {
	const dir = "../../../shared/workloads/pytorch-snapshots/"
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real snapshots absent: %v", err)
	}
	for file, peak := range map[string]int64{
		"magma27_memory_snapshot.pickle":         14180941824,
		"silmont_mem_snapshot.pickle":            3781165056,
		"silmont_memory_forward_bf16_128.pickle": 861929472,
		"silmont_memory_forward_fp32_128.pickle": 610271232,
	} {
		cal := replayCalibration(t, dir+file)
		if cal == nil || cal.RecordedPeakReserved != peak || cal.PeakReserved != peak || cal.Departure != nil {
			t.Errorf("%s: calibration %+v, want peak reserved %d recorded and replayed, no departure", file, cal, peak)
		}
	}
}
