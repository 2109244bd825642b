package allocators

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/montanaflynn/stats"

	"membench/internal/ctxcount"
	"membench/workloads"
	"membench/workloads/synthetic"
)

func mustBFC(t testing.TB, o BFCOptions) *BFC {
	t.Helper()
	if o.Alignment == 0 {
		o.Alignment = 256
	}
	b, err := NewBFC(o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReplayBFCFixtures replays every reference trace through Replay and
// checks the records and stats against TensorFlow's output.
func TestReplayBFCFixtures(t *testing.T) {
	for _, fx := range bfcFixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			tr := readTraceFile(t, filepath.Join("testdata/bfc", fx.trace))
			res, err := Replay(context.Background(), mustBFC(t, fx.opt), tr, ReplayOptions{Repeat: 2, Timeline: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Allocs) != len(fx.allocs) {
				t.Fatalf("%d allocation records, want %d", len(res.Allocs), len(fx.allocs))
			}
			ooms := 0
			for i, got := range res.Allocs {
				w := fx.allocs[i]
				want := AllocRecord{ID: int(w.id), Size: w.size, Offset: w.offset, Chunk: w.chunkSz}
				if w.oom {
					ooms++
				}
				if got != want {
					t.Fatalf("request %d: got %+v, want %+v", i, got, want)
				}
			}
			want := map[string]int64{
				"ooms": int64(ooms), "peak_bytes_in_use": res.PeakAllocated, "peak_pool_bytes": res.PeakReserved,
				"largest_free_chunk": res.LargestFreeChunk,
			}
			for k, v := range want {
				if fx.stats[k] != strconv.FormatInt(v, 10) {
					t.Errorf("%s: replay gives %d, fixture %s", k, v, fx.stats[k])
				}
			}
			if res.OOMs != ooms {
				t.Errorf("OOMs = %d, want %d", res.OOMs, ooms)
			}
			if s := fx.stats["fragmentation"]; strings.HasSuffix(s, "nan") {
				if !math.IsNaN(res.BFCFragmentation) {
					t.Errorf("fragmentation = %v, want NaN", res.BFCFragmentation)
				}
			} else if f, err := strconv.ParseFloat(s, 64); err != nil || f != res.BFCFragmentation {
				t.Errorf("fragmentation = %v, want %s", res.BFCFragmentation, s)
			}
			if len(res.Timeline) != res.Calls || len(res.TimesNs) != 2 || res.NsPerOp <= 0 {
				t.Errorf("timeline %d points for %d calls, %d timings, ns/op %v", len(res.Timeline), res.Calls, len(res.TimesNs), res.NsPerOp)
			}
			if got := float64(res.PeakReserved) / float64(res.PeakInUse); res.Fragmentation != got {
				t.Errorf("Fragmentation = %v, want %v", res.Fragmentation, got)
			}
		})
	}
}

// TestReplayPeakInUseIsLoadBound checks peak_in_use against LB_load of the
// usage records the dnn_1k trace was derived from.
func TestReplayPeakInUseIsLoadBound(t *testing.T) {
	data, err := os.ReadFile("testdata/bfc/dnn_1k.records.csv")
	if err != nil {
		t.Fatal(err)
	}
	var bufs []workloads.Buffer
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		f := strings.Split(line, ",")
		var v [4]int64
		for j := range v {
			if v[j], err = strconv.ParseInt(f[j], 10, 64); err != nil {
				t.Fatalf("line %d: %v", i+2, err)
			}
		}
		bufs = append(bufs, workloads.Buffer{ID: int(v[0]), Size: v[1], First: int(v[2]), Last: int(v[3])})
	}
	tr := readTraceFile(t, "testdata/bfc/dnn_1k.csv")
	res, err := Replay(context.Background(), mustBFC(t, BFCOptions{MemoryLimit: 16 << 30, AllowGrowth: true}), tr, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if lb := workloads.LoadBound(bufs); res.PeakInUse != lb || lb == 0 {
		t.Errorf("peak_in_use = %d, LB_load = %d", res.PeakInUse, lb)
	}
}

func ev(kind workloads.EventKind, id int, n int64, of int) workloads.Event {
	return workloads.Event{Kind: kind, ID: id, Size: n, Of: of}
}

func al(id int, n int64) workloads.Event { return ev(workloads.Alloc, id, n, 0) }
func fr(id int) workloads.Event          { return ev(workloads.Free, id, 0, 0) }
func vw(id, of int) workloads.Event      { return ev(workloads.View, id, 0, of) }

// TestReplaySemantics covers views, zero-byte requests, OOMs and frees of
// failed allocations, with a 1 MiB fixed BFC (one region at 0).
func TestReplaySemantics(t *testing.T) {
	tests := []struct {
		name      string
		events    []workloads.Event
		want      []AllocRecord
		ooms      int
		peakInUse int64
		inUseEnd  int64 // chunk bytes still live
	}{
		{"plain", []workloads.Event{al(1, 100), al(2, 300), fr(1), al(3, 200)},
			[]AllocRecord{{1, 100, 0, 256}, {2, 300, 256, 512}, {3, 200, 0, 256}}, 0, 500, 768},
		{"view keeps storage until last sharer is freed",
			[]workloads.Event{al(1, 1000), vw(2, 1), fr(1), al(3, 1000), fr(2), al(4, 1000)},
			[]AllocRecord{{1, 1000, 0, 1024}, {3, 1000, 1024, 1024}, {4, 1000, 0, 1024}}, 0, 2000, 2048},
		{"view of a view", []workloads.Event{al(1, 256), vw(2, 1), vw(3, 2), fr(1), fr(2), al(4, 256), fr(3), al(5, 256)},
			[]AllocRecord{{1, 256, 0, 256}, {4, 256, 256, 256}, {5, 256, 0, 256}}, 0, 512, 512},
		{"zero bytes is not an OOM", []workloads.Event{al(1, 0), vw(2, 1), fr(1), fr(2), al(3, 1)},
			[]AllocRecord{{1, 0, -1, 0}, {3, 1, 0, 256}}, 0, 1, 256},
		{"OOM is recorded, free of it is a no-op", []workloads.Event{al(1, 600<<10), al(2, 600<<10), fr(2), al(3, 1)},
			[]AllocRecord{{1, 600 << 10, 0, 1 << 20}, {2, 600 << 10, -1, 0}, {3, 1, -1, 0}}, 2, 600 << 10, 1 << 20},
		{"sparse and negative ids", []workloads.Event{al(1<<40, 256), vw(-3, 1<<40), fr(1 << 40), al(7, 256), fr(-3), fr(7)},
			[]AllocRecord{{1 << 40, 256, 0, 256}, {7, 256, 256, 256}}, 0, 512, 0},
		{"id reused after free", []workloads.Event{al(1, 512), fr(1), al(1, 256)},
			[]AllocRecord{{1, 512, 0, 512}, {1, 256, 0, 256}}, 0, 512, 256},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := mustBFC(t, BFCOptions{MemoryLimit: 1 << 20})
			res, err := Replay(context.Background(), b, &workloads.Trace{Name: "t", Events: tc.events}, ReplayOptions{Repeat: 3})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Allocs) != len(tc.want) {
				t.Fatalf("allocs = %+v, want %+v", res.Allocs, tc.want)
			}
			for i := range tc.want {
				if res.Allocs[i] != tc.want[i] {
					t.Errorf("allocs[%d] = %+v, want %+v", i, res.Allocs[i], tc.want[i])
				}
			}
			if res.OOMs != tc.ooms || res.PeakInUse != tc.peakInUse || res.Final.InUse != tc.inUseEnd {
				t.Errorf("ooms %d peak_in_use %d in use at end %d, want %d %d %d",
					res.OOMs, res.PeakInUse, res.Final.InUse, tc.ooms, tc.peakInUse, tc.inUseEnd)
			}
			if len(res.TimesNs) != 3 {
				t.Errorf("%d timings, want 3", len(res.TimesNs))
			}
		})
	}
}

func TestReplayBadTrace(t *testing.T) {
	tests := []struct {
		name   string
		events []workloads.Event
		msg    string
	}{
		{"unknown free", []workloads.Event{al(1, 8), fr(2)}, "bad.csv: event 2: free of id 2, which is not allocated"},
		{"double free", []workloads.Event{al(1, 8), fr(1), fr(1)}, "event 3: free of id 1, which is not allocated"},
		{"live id reused", []workloads.Event{al(1, 8), al(1, 8)}, "event 2: alloc of id 1, which is still live"},
		{"negative size", []workloads.Event{al(1, -1)}, "event 1: alloc of id 1 with -1 bytes: want >= 0"},
		{"view of unknown", []workloads.Event{vw(2, 1)}, "event 1: view 2 of id 1, which is not live"},
		{"view onto live id", []workloads.Event{al(1, 8), al(2, 8), vw(2, 1)}, "event 3: view 2 of 1: id 2 is still live"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Replay(context.Background(), mustBFC(t, BFCOptions{MemoryLimit: 1 << 20}),
				&workloads.Trace{Name: "bad.csv", Events: tc.events}, ReplayOptions{})
			var ie *workloads.InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want an InputError containing %q", err, tc.msg)
			}
		})
	}
}

// noReset hides BFC's Reset, as for allocators without one.
type noReset struct{ Allocator }

func TestReplayTimedWithFactory(t *testing.T) {
	tr := readTraceFile(t, "testdata/bfc/rand_2k.csv")
	o := BFCOptions{MemoryLimit: 1 << 30, AllowGrowth: true}
	built := 0
	res, err := Replay(context.Background(), noReset{mustBFC(t, o)}, tr, ReplayOptions{Repeat: 4,
		New: func() Allocator { built++; return noReset{mustBFC(t, o)} }})
	if err != nil {
		t.Fatal(err)
	}
	if med, _ := stats.Median(res.TimesNs); built != 4 || len(res.TimesNs) != 4 || res.NsPerOp != med {
		t.Errorf("built %d allocators, timings %v, ns/op %v", built, res.TimesNs, res.NsPerOp)
	}
	// Without Reset or a factory, the recorded replay is the timed one.
	res, err = Replay(context.Background(), noReset{mustBFC(t, o)}, tr, ReplayOptions{Repeat: 4})
	if err != nil || len(res.TimesNs) != 1 {
		t.Fatalf("err %v, timings %v", err, res.TimesNs)
	}
}

func TestReplayCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tr := readTraceFile(t, "testdata/bfc/smoke.csv")
	if _, err := Replay(ctx, mustBFC(t, BFCOptions{MemoryLimit: 1 << 30}), tr, ReplayOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestReplayStops: a replay cancelled on entry, during the recorded
// pass, halfway or at its last look returns context.Canceled within a few
// more looks at its context, for every allocator; counted, not timed.
func TestReplayStops(t *testing.T) {
	tr, err := synthetic.RandomDAG(synthetic.DefaultDAG(20_000, 1)).ToTrace()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"first-fit", "bfc", "torch-caching", "oneflow-bin"} {
		a, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		err = ctxcount.Stops(func(ctx *ctxcount.Context) error {
			_, err := Replay(ctx, a.New(), tr, ReplayOptions{Repeat: 3, New: a.New})
			return err
		}, 256, 4)
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// overlapping hands every request the same offset: a broken allocator.
type overlapping struct{ inUse int64 }

func (o *overlapping) Alloc(size int64) (Block, error) {
	o.inUse += size
	return Block{Offset: 0, Size: size}, nil
}
func (o *overlapping) Free(int64) error { return nil }
func (o *overlapping) Stats() Stats     { return Stats{InUse: o.inUse} }

func TestReplayVerify(t *testing.T) {
	for _, fx := range bfcFixtures(t) {
		tr := readTraceFile(t, filepath.Join("testdata/bfc", fx.trace))
		if _, err := Replay(context.Background(), mustBFC(t, fx.opt), tr, ReplayOptions{Verify: true}); err != nil {
			t.Errorf("%s: %v", fx.name, err)
		}
	}
	tr := &workloads.Trace{Name: "t", Events: []workloads.Event{al(1, 64), al(2, 64)}}
	_, err := Replay(context.Background(), &overlapping{}, tr, ReplayOptions{Verify: true})
	if !errors.Is(err, ErrIntegrity) || !strings.Contains(err.Error(), "event 2: alloc of id 2") {
		t.Fatalf("err = %v, want ErrIntegrity at event 2", err)
	}
}

// TestReplayUntimed checks that an untimed replay runs the recorded replay
// alone: the same outcome as a timed one, and no times.
func TestReplayUntimed(t *testing.T) {
	tr := &workloads.Trace{Events: []workloads.Event{
		{Kind: workloads.Alloc, ID: 1, Size: 1000}, {Kind: workloads.Alloc, ID: 2, Size: 300},
		{Kind: workloads.Free, ID: 1}, {Kind: workloads.Alloc, ID: 3, Size: 700}, {Kind: workloads.Free, ID: 2},
	}}
	a := mustBFC(t, BFCOptions{MemoryLimit: 1 << 20})
	untimed, err := Replay(context.Background(), a, tr, ReplayOptions{Untimed: true, Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	timed, err := Replay(context.Background(), mustBFC(t, BFCOptions{MemoryLimit: 1 << 20}), tr, ReplayOptions{Repeat: 3, Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	if untimed.TimesNs != nil || untimed.NsPerOp != 0 {
		t.Errorf("untimed replay has times %v, %v ns/op", untimed.TimesNs, untimed.NsPerOp)
	}
	if len(timed.TimesNs) != 3 {
		t.Errorf("timed replay has %d times, want 3", len(timed.TimesNs))
	}
	if untimed.PeakReserved != timed.PeakReserved || len(untimed.Allocs) != len(timed.Allocs) || len(untimed.Timeline) != len(timed.Timeline) {
		t.Errorf("untimed %+v differs from timed %+v", untimed.Allocs, timed.Allocs)
	}
	for i := range untimed.Allocs {
		if untimed.Allocs[i] != timed.Allocs[i] {
			t.Errorf("alloc %d: untimed %+v, timed %+v", i, untimed.Allocs[i], timed.Allocs[i])
		}
	}
}
