package allocators_test

import (
	"errors"
	"testing"

	"membench/allocators"
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
