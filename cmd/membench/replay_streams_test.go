package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReplayStreams replays a two-stream trace with record_stream: the
// first block stays taken until both streams have synced; --free-delay
// delays the frees of a trace without sync points and is refused for one
// with them.
func TestReplayStreams(t *testing.T) {
	dir := t.TempDir()
	streams := filepath.Join(dir, "streams.csv")
	plain := filepath.Join(dir, "plain.csv")
	os.WriteFile(streams, []byte("a,1,1024,0\nr,1,1\nf,1,0\na,2,1024,0\ns,0\na,3,1024,0\ns,1\na,4,1024,1\n"), 0o644)
	os.WriteFile(plain, []byte("a,1,1024\nf,1\na,2,1024\na,3,1024\n"), 0o644)
	offsets := func(args ...string) []int64 {
		t.Helper()
		r := expect(t, 0, nil, append([]string{"replay", "--format", "json", "--verify", "--repeat", "1"}, args...)...)
		var got struct{ Allocs [][]int64 }
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
			t.Fatalf("%v in %s", err, r.stdout)
		}
		var o []int64
		for _, a := range got.Allocs {
			o = append(o, a[2])
		}
		return o
	}
	for _, c := range []struct {
		args []string
		want []int64
	}{
		{[]string{"--allocator", "first-fit", streams}, []int64{0, 1024, 2048, 0}},
		{[]string{"--allocator", "oneflow-bin", streams}, []int64{0, 512 * 2, 512 * 4, 2 << 20}},
		{[]string{"--allocator", "first-fit", plain}, []int64{0, 0, 1024}},
		{[]string{"--allocator", "first-fit", "--free-delay", "1", plain}, []int64{0, 1024, 0}},
	} {
		if got := offsets(c.args...); !slices.Equal(got, c.want) {
			t.Errorf("%q: offsets %v, want %v", c.args, got, c.want)
		}
	}
	expect(t, 2, []string{"a free delay (2 events) is for traces without sync points"}, "replay", "--allocator", "bfc", "--free-delay", "2", streams)
	expect(t, 2, []string{"--free-delay=-1: want >= 0 events"}, "replay", "--allocator", "bfc", "--free-delay", "-1", plain)
}
