package allocators

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"membench/workloads"
)

// testFreer is a DeferredFreer over first-fit that completes a free when
// every stream that used the block has synced, or, eager, at the request
// (which breaks stream safety).
type testFreer struct {
	Allocator
	eager bool
	users map[int64][]int // live block -> streams that used it
	pend  map[int64][]int // requested block -> streams yet to sync
	calls []string
}

func newTestFreer(t testing.TB, eager bool) *testFreer {
	return &testFreer{Allocator: scBuild(t, "first-fit"), eager: eager, users: map[int64][]int{}, pend: map[int64][]int{}}
}

func (f *testFreer) AllocOn(size int64, stream int) (Block, error) {
	b, err := f.Alloc(size)
	if err == nil {
		f.users[b.Offset] = []int{stream}
	}
	return b, err
}

func (f *testFreer) RecordStream(off int64, stream int) error {
	u, ok := f.users[off]
	if !ok {
		return badFree("test", off)
	}
	f.users[off] = append(u, stream)
	return nil
}

func (f *testFreer) RequestFree(off int64, stream int) error {
	u, ok := f.users[off]
	if !ok {
		return badFree("test", off)
	}
	delete(f.users, off)
	if f.eager {
		return f.Free(off)
	}
	f.pend[off] = append(u, stream)
	return nil
}

func (f *testFreer) Sync(stream int) {
	f.calls = append(f.calls, "sync")
	for _, off := range slices.Sorted(func(yield func(int64) bool) {
		for off := range f.pend {
			if !yield(off) {
				return
			}
		}
	}) {
		w := slices.DeleteFunc(f.pend[off], func(s int) bool { return s == stream })
		if len(w) > 0 {
			f.pend[off] = w
			continue
		}
		delete(f.pend, off)
		if err := f.Free(off); err != nil {
			panic(err)
		}
	}
}

func readTraceString(t *testing.T, s string) *workloads.Trace {
	t.Helper()
	tr, err := workloads.ReadTrace(strings.NewReader(s), "t")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func offsets(res *ReplayResult) []int64 {
	var o []int64
	for _, a := range res.Allocs {
		o = append(o, a.Offset)
	}
	return o
}

// TestReplayStreamsHoldUntilSync is DESIGN §11's done-when case: a block
// recorded on a second stream stays taken until both streams have synced
// after its free, under a plain allocator and under a DeferredFreer.
func TestReplayStreamsHoldUntilSync(t *testing.T) {
	const trace = `a,1,1024,0
r,1,1
f,1,0
a,2,1024,0
s,0
a,3,1024,0
s,1
a,4,1024,1
`
	tr := readTraceString(t, trace)
	want := []int64{0, 1024, 2048, 0}
	for _, c := range []struct {
		name string
		a    Allocator
	}{
		{"plain", scBuild(t, "first-fit")},
		{"deferred", newTestFreer(t, false)},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Replay(context.Background(), c.a, tr, ReplayOptions{Verify: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := offsets(res); !slices.Equal(got, want) {
				t.Errorf("offsets %v, want %v", got, want)
			}
			// The first block counts until the sync that completes it.
			if res.PeakInUse != 3072 || res.Final.InUse != 3*1024 {
				t.Errorf("peak in use %d, in use at end %d, want 3072 and 3072", res.PeakInUse, res.Final.InUse)
			}
		})
	}
	// A timed replay drives the DeferredFreer the same way.
	built := []*testFreer{}
	res, err := Replay(context.Background(), newTestFreer(t, false), tr, ReplayOptions{Repeat: 2,
		New: func() Allocator { built = append(built, newTestFreer(t, false)); return built[len(built)-1] }})
	if err != nil || len(res.TimesNs) != 2 {
		t.Fatalf("err %v, %d timings", err, len(res.TimesNs))
	}
	for _, f := range built {
		if len(f.calls) != 2 || len(f.pend) != 0 {
			t.Errorf("timed replay: %d syncs, %d frees pending, want 2 and 0", len(f.calls), len(f.pend))
		}
	}
}

func TestReplayStreamsViews(t *testing.T) {
	// The view keeps the storage; its record and free stream count.
	tr := readTraceString(t, "a,1,1024,0\nv,2,1\nf,1,0\nr,2,1\nf,2,2\na,3,1024,0\ns,0\ns,1\na,4,1024,0\ns,2\na,5,1024,0\n")
	res, err := Replay(context.Background(), scBuild(t, "first-fit"), tr, ReplayOptions{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := offsets(res), []int64{0, 1024, 2048, 0}; !slices.Equal(got, want) {
		t.Errorf("offsets %v, want %v", got, want)
	}
}

func TestVerifierCatchesStreamUnsafeReuse(t *testing.T) {
	tr := readTraceString(t, "a,1,1024,0\nr,1,1\nf,1,0\na,2,1024,0\ns,0\ns,1\n")
	_, err := Replay(context.Background(), newTestFreer(t, true), tr, ReplayOptions{Verify: true})
	const want = "replay: event 4: alloc of id 2: verify: allocation #2 on stream 0 at [0x0, 0x400) takes memory of allocation #1 at [0x0, 0x400), whose free waits for stream 1 to sync: allocator integrity violation"
	if !errors.Is(err, ErrIntegrity) || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	// Its own stream may reuse a block nobody else used at once.
	tr = readTraceString(t, "a,1,1024,1\nf,1,1\na,2,1024,1\ns,1\n")
	res, err := Replay(context.Background(), newTestFreer(t, true), tr, ReplayOptions{Verify: true})
	if err != nil || !slices.Equal(offsets(res), []int64{0, 0}) {
		t.Fatalf("err %v, offsets %v", err, offsets(res))
	}
}

func TestReplayFreeDelay(t *testing.T) {
	tr := readTraceString(t, "a,1,1024\nf,1\na,2,1024\na,3,1024\n")
	for delay, want := range [][]int64{{0, 0, 1024}, {0, 1024, 0}, {0, 1024, 2048}, {0, 1024, 2048}} {
		res, err := Replay(context.Background(), scBuild(t, "first-fit"), tr, ReplayOptions{FreeDelay: delay, Verify: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := offsets(res); !slices.Equal(got, want) {
			t.Errorf("delay %d: offsets %v, want %v", delay, got, want)
		}
	}
	_, err := Replay(context.Background(), scBuild(t, "first-fit"), readTraceString(t, "a,1,8\nf,1\ns,0\n"), ReplayOptions{FreeDelay: 1})
	var ue *workloads.UsageError
	if !errors.As(err, &ue) || err.Error() != "t: a free delay (1 events) is for traces without sync points, and this one has them" {
		t.Errorf("err = %v, want a UsageError", err)
	}
}

func TestReplayBadStreamTrace(t *testing.T) {
	tr := &workloads.Trace{Name: "bad.csv", Events: []workloads.Event{al(1, 8), fr(1), {Kind: workloads.Record, ID: 1, Stream: 2}}}
	_, err := Replay(context.Background(), scBuild(t, "first-fit"), tr, ReplayOptions{})
	var ie *workloads.InputError
	if !errors.As(err, &ie) || err.Error() != "bad.csv: event 3: record of id 1 on stream 2: the id is not live" {
		t.Fatalf("err = %v", err)
	}
}

// sloppyFreer accepts requests and records for any offset.
type sloppyFreer struct{ *testFreer }

func (s sloppyFreer) RequestFree(off int64, stream int) error {
	if _, ok := s.users[off]; !ok {
		return nil
	}
	return s.testFreer.RequestFree(off, stream)
}

func TestVerifierStreamContract(t *testing.T) {
	// A plain allocator: a requested block stays in use until Free, and a
	// request of an unknown offset is refused without blame.
	v := Verify(scBuild(t, "first-fit"))
	b, err := v.AllocOn(1000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.RequestFree(b.Offset, 1); err != nil {
		t.Fatal(err)
	}
	if err := v.Check(); err != nil {
		t.Fatalf("Check with a request pending: %v", err)
	}
	if err := v.RequestFree(4096, 0); !errors.Is(err, ErrBadFree) || errors.Is(err, ErrIntegrity) {
		t.Fatalf("request of an unknown offset: %v, want ErrBadFree", err)
	}
	if err := v.RecordStream(4096, 0); !errors.Is(err, ErrBadFree) || errors.Is(err, ErrIntegrity) {
		t.Fatalf("record of an unknown offset: %v, want ErrBadFree", err)
	}
	// Stream 0 may not take the block before stream 1 syncs; stream 1 may.
	if b2, err := v.AllocOn(1000, 1); err != nil || b2.Offset == b.Offset {
		t.Fatalf("AllocOn = %+v, %v: the block is not free yet", b2, err)
	}
	v.Sync(1)
	if err := v.Free(b.Offset); err != nil {
		t.Fatal(err)
	}
	if err := v.Check(); err != nil {
		t.Fatal(err)
	}

	// A DeferredFreer must refuse a request of an unknown offset.
	v = Verify(sloppyFreer{newTestFreer(t, false)})
	err = v.RequestFree(4096, 0)
	const want = "verify: allocator accepted a free of 0x1000, which is not a live allocation: allocator integrity violation"
	if !errors.Is(err, ErrIntegrity) || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
}
