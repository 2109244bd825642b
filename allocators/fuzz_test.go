package allocators_test

import (
	"context"
	"errors"
	"testing"

	"membench/allocators"
	"membench/workloads"
)

// FuzzAllocators decodes random traces from bytes and runs them through
// every registered allocator, unlimited and under a 16 MiB memory_limit,
// behind a Verifier: no overlap, no overwritten stamp, no accepted bad free
// and consistent InUse, whatever the trace.
//
// Each event is 3 bytes: op, x, y. op%4 == 0 frees live block x; op%4 == 1
// frees an offset freed before (a double free, which must be refused);
// otherwise it allocates ((x<<8 | y) + 1) << (op>>5) bytes (1 B to 8 MiB).
func FuzzAllocators(f *testing.F) {
	f.Add([]byte{2, 0, 10, 2, 1, 0, 0, 0, 0, 1, 0, 0, 0xe2, 0xff, 0xff})
	f.Add([]byte{0xe2, 0xff, 0xff, 0xe2, 0xff, 0xff, 0xe2, 0xff, 0xff, 0, 1, 0, 0x62, 0, 0, 0, 0, 0, 0x42, 3, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, info := range allocators.All() {
			for _, spec := range []string{info.Name, info.Name + "?memory_limit=16M"} {
				fuzzTrace(t, spec, data)
			}
		}
		// Expandable segments map and unmap pages: their own paths.
		fuzzTrace(t, "torch-caching?alloc_conf=expandable_segments:True", data)
		fuzzTrace(t, "torch-caching?alloc_conf=expandable_segments:True&memory_limit=16M", data)
	})
}

func fuzzTrace(t *testing.T, spec string, data []byte) {
	v := allocators.Verify(mustNew(t, spec))
	var live, freed []int64
	for i := 0; i+3 <= len(data); i += 3 {
		op, x, y := data[i], int(data[i+1]), int(data[i+2])
		switch {
		case op%4 == 0 && len(live) > 0:
			j := x % len(live)
			if err := v.Free(live[j]); err != nil {
				t.Fatalf("%s: event %d: Free(%#x): %v", spec, i/3, live[j], err)
			}
			freed = append(freed, live[j])
			live[j] = live[len(live)-1]
			live = live[:len(live)-1]
		case op%4 == 1 && len(freed) > 0:
			off := freed[x%len(freed)]
			if isLive(live, off) {
				continue
			}
			if err := v.Free(off); !errors.Is(err, allocators.ErrBadFree) || errors.Is(err, allocators.ErrIntegrity) {
				t.Fatalf("%s: event %d: double Free(%#x) = %v, want ErrBadFree", spec, i/3, off, err)
			}
		default:
			size := int64(x<<8|y+1) << (op >> 5)
			b, err := v.Alloc(size)
			if errors.Is(err, allocators.ErrOOM) {
				continue
			}
			if err != nil {
				t.Fatalf("%s: event %d: Alloc(%d): %v", spec, i/3, size, err)
			}
			live = append(live, b.Offset)
		}
	}
	if err := v.Check(); err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	for _, off := range live {
		if err := v.Free(off); err != nil {
			t.Fatalf("%s: final Free(%#x): %v", spec, off, err)
		}
	}
	if err := v.Check(); err != nil {
		t.Fatalf("%s: after freeing everything: %v", spec, err)
	}
}

func isLive(live []int64, off int64) bool {
	for _, o := range live {
		if o == off {
			return true
		}
	}
	return false
}

// FuzzStreamReplay decodes a trace on four streams from bytes and replays
// it through every registered allocator behind the Verifier, which checks
// stream safety besides the rest. Each event is 2 bytes, op and x:
// op%8 < 3 allocates ((x+1) << (op>>4)) bytes on stream op>>2&3, 3 and 4
// free live tensor x (on the stream of one of its users), 5 records live
// tensor x on stream op>>4&3, 6 syncs stream x&3, 7 views live tensor x.
func FuzzStreamReplay(f *testing.F) {
	f.Add([]byte{0, 5, 0x15, 0, 5, 0x10, 3, 0, 6, 0, 0x11, 1, 6, 1, 4, 0})
	f.Add([]byte{0x22, 9, 7, 0, 3, 0, 3, 0, 6, 2, 0xf0, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		tr := &workloads.Trace{Name: "fuzz"}
		type tensor struct {
			id    int
			users []int32
		}
		var live []tensor
		next := 0
		for i := 0; i+2 <= len(data); i += 2 {
			op, x := data[i], int(data[i+1])
			switch k := op % 8; {
			case k < 3:
				s := int32(op >> 2 & 3)
				tr.Events = append(tr.Events, workloads.Event{Kind: workloads.Alloc, ID: next, Size: int64(x+1) << (op >> 4), Stream: s})
				live = append(live, tensor{next, []int32{s}})
				next++
			case len(live) == 0:
			case k < 5:
				j := x % len(live)
				tr.Events = append(tr.Events, workloads.Event{Kind: workloads.Free, ID: live[j].id, Stream: live[j].users[int(op>>4)%len(live[j].users)]})
				live = append(live[:j], live[j+1:]...)
			case k == 5:
				j, s := x%len(live), int32(op>>4&3)
				tr.Events = append(tr.Events, workloads.Event{Kind: workloads.Record, ID: live[j].id, Stream: s})
				live[j].users = append(live[j].users, s)
			case k == 6:
				tr.Events = append(tr.Events, workloads.Event{Kind: workloads.Sync, Stream: int32(x & 3)})
			default:
				tr.Events = append(tr.Events, workloads.Event{Kind: workloads.View, ID: next, Of: live[x%len(live)].id})
				live = append(live, tensor{next, live[x%len(live)].users})
				next++
			}
		}
		for _, info := range allocators.All() {
			for _, spec := range []string{info.Name, info.Name + "?memory_limit=16M"} {
				if _, err := allocators.Replay(context.Background(), mustNew(t, spec), tr, allocators.ReplayOptions{Verify: true}); err != nil {
					t.Fatalf("%s: %v", spec, err)
				}
			}
		}
	})
}
