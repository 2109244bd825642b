package workloads

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestReadPyTorch(t *testing.T) {
	// From gen_snapshots.py: the tensor freed at BASE+8192 (id 0) and the
	// block live at BASE+4096 (id 1) predate the recording; the oom request
	// is no allocation; id 4 is never freed; the segment_unmap that no
	// segment_alloc, segment_map or oom follows is an empty_cache().
	const basic = "a,0,2048\na,1,1000\na,2,500\na,3,3000\nf,0,\nf,2,\na,4,400\ne\nf,3,\n"
	cases := []struct {
		file, want string
		ooms       int
	}{
		{"basic.pickle", basic, 1},
		{"basic_p2.pickle", basic, 1},
		{"state_only.pickle", "a,0,1000\na,1,2048\n", 0},
		// PyTorch 1.13: the block allocated before the history (768 B)
		// first, then the histories in rounds: the first block's older
		// 512 B; its live 1000 B with the other block's 2000 B.
		{"v113.pickle", "a,0,768\na,1,512\nf,1,\na,2,1000\na,3,2000\nf,3,\n", 0},
		// The first segment_free is an empty_cache() (e); the second, a
		// release before a successful retry, reads as one too; the third,
		// which an oom follows, is the failed request's own release.
		{"empty_cache.pickle", "a,0,3145728\nf,0,\ne\na,1,25165824\nf,1,\ne\na,2,31457280\nf,2,\n", 1},
		// Recorded mid-run: the block freed first (id 0) and the blocks
		// live throughout (ids 1, 2) are allocated at the start.
		{"mid_run.pickle", "a,0,3145628\na,1,4194304\na,2,1000\ne\nf,0,\na,3,12582912\na,4,600000\n", 0},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := "testdata/pytorch/" + c.file
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tr, err := ReadPyTorch(f, path)
			if err != nil {
				t.Fatal(err)
			}
			if got := traceText(t, tr); got != c.want || tr.Name != path {
				t.Fatalf("got\n%s\nwant\n%s", got, c.want)
			}
			if tr.OOMs != c.ooms || tr.Warnings != nil {
				t.Fatalf("%d OOMs, warnings %q; want %d OOMs, no warnings", tr.OOMs, tr.Warnings, c.ooms)
			}
		})
	}
	w, err := Load("testdata/pytorch/basic.pickle")
	if err != nil {
		t.Fatal(err)
	}
	// Live at the peak (event 3): ids 0 to 3; the failed 1 TiB request
	// takes no memory.
	if lb, want := w.Problem.LoadBound(), int64(2048+1000+500+3000); lb != want {
		t.Fatalf("LB_load %d, want %d", lb, want)
	}
	if w.Problem.Buffers[1].Last != 8 || w.Problem.Buffers[4].Last != 8 {
		t.Fatalf("allocations never freed must live to the last event: %+v", w.Problem.Buffers)
	}
}

// TestReadPyTorchCache: the cache a recording started from, rebuilt from
// the snapshot's segments by undoing the trace's segment entries, and
// what the recording says of its segments.
func TestReadPyTorchCache(t *testing.T) {
	const mib = 1 << 20
	cases := []struct {
		file  string
		cache []CacheSegment
		rec   *Recording
	}{
		{"mid_run.pickle", []CacheSegment{
			// The freed block's size is its request rounded to 512 bytes:
			// more than 1 MiB is left before the next block.
			{Size: 20 * mib, Blocks: []CacheBlock{{Offset: 0, Size: 3 * mib, ID: 0}, {Offset: 10 * mib, Size: 4 * mib, ID: 1}}},
			{Size: 2 * mib, Small: true, Blocks: []CacheBlock{{Offset: 0, Size: 1024, ID: 2}}},
			{Size: 20 * mib}, // freed by the empty_cache()
		}, &Recording{Reserved: 42 * mib, PeakReserved: 42 * mib, EmptyCaches: 1, Segments: []SegmentEvent{
			{Free: true, Size: 20 * mib, Event: 3, Entry: 0}, {Size: 12 * mib, Event: 5, Entry: 3}}}},
		{"empty_cache.pickle", nil, &Recording{Reserved: 0, PeakReserved: 30 * mib, EmptyCaches: 2, Segments: []SegmentEvent{
			{Size: 20 * mib, Event: 0, Entry: 0}, {Free: true, Size: 20 * mib, Event: 2, Entry: 4},
			{Size: 24 * mib, Event: 3, Entry: 5}, {Free: true, Size: 24 * mib, Event: 5, Entry: 9}, {Size: 30 * mib, Event: 6, Entry: 10},
			{Free: true, Size: 30 * mib, Event: 8, Entry: 14}}}},
		{"basic.pickle", nil, &Recording{Reserved: 0, PeakReserved: 4 * mib, EmptyCaches: 1, Segments: []SegmentEvent{
			{Size: 2 * mib, Event: 2, Entry: 0}, {Size: 2 * mib, Event: 7, Entry: 10}, {Free: true, Size: 2 * mib, Event: 7, Entry: 11}}}},
		// No segments and no segment entries: nothing to calibrate against.
		{"settings.pickle", nil, nil},
		{"cache_unbuilt.pickle", nil, &Recording{Reserved: 0, PeakReserved: 2 * mib, Segments: []SegmentEvent{{Size: 2 * mib, Event: 2, Entry: 0}}}},
	}
	for _, c := range cases {
		w, err := Load("testdata/pytorch/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		if c.file == "cache_unbuilt.pickle" {
			want = []string{"the cache the recording started from is not rebuilt (the block at 0x7f0000002000 allocated before it lies in no segment): the replay starts from an empty cache"}
		}
		if got := w.Trace.Warnings; !slices.Equal(got, want) {
			t.Errorf("%s: warnings %q, want %q", c.file, got, want)
		}
		if got := fmt.Sprintf("%+v", w.Trace.Cache); got != fmt.Sprintf("%+v", c.cache) {
			t.Errorf("%s: cache\n%s\nwant\n%+v", c.file, got, c.cache)
		}
		if got := fmt.Sprintf("%+v", w.Trace.Recording); got != fmt.Sprintf("%+v", c.rec) {
			t.Errorf("%s: recording\n%s\nwant\n%+v", c.file, got, c.rec)
		}
	}
}

func TestReadPyTorchErrors(t *testing.T) {
	const dir = "testdata/pytorch/"
	cases := []struct{ file, want string }{
		{"two_devices.pickle", "trace events on 2 devices (0, 1): choose one with ?device=N"},
		{"two_devices.pickle?device=2", "no trace events on device 2 (devices with trace events: 0, 1)"},
		{"v113_two_devices.pickle", "allocator blocks on 2 devices (0, 1): choose one with ?device=N"},
		{"host_only.pickle", "no device memory recorded: device_traces has no entries and segments no blocks (a snapshot taken before any CUDA allocation, or of the host only)"},
		{"not_dict.pickle", "not a PyTorch memory snapshot: the pickle holds a list of int, want a dict with segments and device_traces (or PyTorch 1.13's list of segment dicts)"},
		{"not_segments.pickle", "not a PyTorch memory snapshot: the pickle holds a list of str, want a dict with segments and device_traces (or PyTorch 1.13's list of segment dicts)"},
		{"no_keys.pickle", `not a PyTorch memory snapshot: the dict has neither "segments" nor "device_traces"`},
		{"missing_size.pickle", `device_traces[0][1] (alloc): missing field "size"`},
		{"first_not_entry.pickle", `device_traces[0][0]: missing field "action"`},
		{"double_alloc.pickle", "device_traces[0][2] (alloc): address 0x7f0000000000 is still allocated (since device_traces[0][1] (alloc))"},
		{"size_str.pickle", `device_traces[0][1] (alloc): field "size": want an integer, got str`},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			_, err := Load(dir + c.file)
			file, _, _ := strings.Cut(c.file, "?")
			if want := dir + file + ": " + c.want; err == nil || err.Error() != want {
				t.Fatalf("got %v\nwant %s", err, want)
			}
		})
	}
	// Corrupt pickles are refused before the decoder sees them.
	data, err := os.ReadFile(dir + "basic.pickle")
	if err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", data[:len(data)/2], "x: not a valid pickle: frame at byte 2 is longer than the file"},
		{"huge frame", []byte("\x80\x04\x95\xff\xff\xff\xff\xff\xff\xff\x7f}."), "x: not a valid pickle: frame at byte 2 is longer than the file"},
		{"huge string", []byte("\x80\x04\x8d\xff\xff\xff\xff\xff\xff\xff\x7f"), "x: not a valid pickle: bad length at byte 2"},
		{"no stop", []byte("\x80\x04}"), "x: not a valid pickle: no STOP opcode at the end"},
		{"bad opcode", []byte("\x80\x04\xff."), "x: not a valid pickle: unknown opcode 0xff at byte 2"},
		{"empty stack", []byte("\x80\x04."), "x: not a valid pickle: the stack is empty"},
		{"truncated string", []byte("\x80\x02X\x05\x00\x00\x00ab"), "x: not a valid pickle: bad length at byte 2"},
		{"list", []byte("\x80\x02]."), "x: no device memory recorded: device_traces has no entries and segments no blocks (a snapshot taken before any CUDA allocation, or of the host only)"},
		{"int", []byte("\x80\x02K\x01."), "x: not a PyTorch memory snapshot: the pickle holds an int, want a dict with segments and device_traces"},
		// Sizes past int64, Python types and the decoder's messages in words.
		{"2**100", []byte("\x80\x02}q\x00X\x0d\x00\x00\x00device_tracesq\x01]q\x02]q\x03}q\x04(X\x06\x00\x00\x00actionq\x05X\x05\x00\x00\x00allocq\x06X\x04\x00\x00\x00addrq\x07K\x01X\x04\x00\x00\x00sizeq\x08\x8a\x0d\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x10uaas."),
			`x: device_traces[0][0] (alloc): field "size": 1267650600228229401496703205376 does not fit in 64 bits`},
		{"complex", []byte("\x80\x02}q\x00X\x0d\x00\x00\x00device_tracesq\x01]q\x02]q\x03}q\x04(X\x06\x00\x00\x00actionq\x05X\x05\x00\x00\x00allocq\x06X\x04\x00\x00\x00addrq\x07K\x01X\x04\x00\x00\x00sizeq\x08c__builtin__\x0acomplex\x0aq\x09G?\xf0\x00\x00\x00\x00\x00\x00G@\x00\x00\x00\x00\x00\x00\x00\x86q\x0aRq\x0buaas."),
			"x: not a valid pickle: it calls the Python class __builtin__.complex, which a memory snapshot never holds (only dicts, lists, strings and numbers)"},
		{"object size", []byte("\x80\x02}q\x00X\x0d\x00\x00\x00device_tracesq\x01]q\x02]q\x03}q\x04(X\x06\x00\x00\x00actionq\x05X\x05\x00\x00\x00allocq\x06X\x04\x00\x00\x00addrq\x07K\x01X\x04\x00\x00\x00sizeq\x08ctest\x0aFoo\x0aq\x09)\x81q\x0auaas."),
			`x: device_traces[0][0] (alloc): field "size": want an integer, got test.Foo`},
		{"set size", []byte("\x80\x04\x95E\x00\x00\x00\x00\x00\x00\x00}\x94\x8c\x0ddevice_traces\x94]\x94]\x94}\x94(\x8c\x06action\x94\x8c\x05alloc\x94\x8c\x04addr\x94K\x01\x8c\x04size\x94\x8f\x94(K\x01\x90uaas."),
			`x: device_traces[0][0] (alloc): field "size": want an integer, got set`},
		{"reduce a list", []byte("\x80\x04])R."), "x: not a valid pickle: REDUCE requires a Callable object"},
		{"object state", []byte("\x80\x02]q\x00ctest\x0aFoo\x0aq\x01)\x81q\x02}q\x03X\x01\x00\x00\x00aq\x04K\x01sba."),
			"x: not a valid pickle: it restores the state of a Python object, which a memory snapshot never holds (only dicts, lists, strings and numbers)"},
	}
	// A Python object in a field membench does not read is fine.
	if _, err := parsePyTorch([]byte("\x80\x02}q\x00X\x0d\x00\x00\x00device_tracesq\x01]q\x02]q\x03}q\x04(X\x06\x00\x00\x00actionq\x05X\x05\x00\x00\x00allocq\x06X\x04\x00\x00\x00addrq\x07K\x01X\x04\x00\x00\x00sizeq\x08K\x01X\x05\x00\x00\x00extraq\x09ctest\x0aFoo\x0aq\x0a)\x81q\x0buaas."), "x", ""); err != nil {
		t.Errorf("object in an unread field: %v", err)
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := parsePyTorch(c.data, "x", "")
			if err == nil || err.Error() != c.want {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

// TestPlainPickleError: the decoder's messages lose their Go values.
func TestPlainPickleError(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"the stack is empty", "the stack is empty"},
		{"REDUCE requires a Callable object: &types.List{1, 2}", "REDUCE requires a Callable object"},
		{`REDUCE requires a Callable object: &types.GenericClass{Module:"builtins", Name:"range"}`,
			"it calls the Python class builtins.range, which a memory snapshot never holds (only dicts, lists, strings and numbers)"},
		{"Reconstructor: invalid arguments: []interface {}{1}", "Reconstructor: invalid arguments"},
		{"key not found in Dict: map[string]int{\"a\":1}", "key not found in Dict"},
		{`STACK_GLOBAL requires str name: 5`, `STACK_GLOBAL requires str name: 5`},
	} {
		if got := plainPickleError(tc.in); got != tc.want {
			t.Errorf("plainPickleError(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestReadPyTorchSettings checks that a snapshot's allocator_settings come
// out with its trace.
func TestReadPyTorchSettings(t *testing.T) {
	for file, want := range map[string]string{"settings.pickle": "expandable_segments:True", "basic.pickle": "", "state_only.pickle": ""} {
		w, err := Load("testdata/pytorch/" + file)
		if err != nil {
			t.Fatal(err)
		}
		if got := w.Trace.AllocatorSettings; got != want {
			t.Errorf("%s: AllocatorSettings %q, want %q", file, got, want)
		}
	}
}

// TestReadPyTorchDevice: ?device=N picks one device of a multi-device
// snapshot, trace or 1.13 segments; a device that is no number is bad
// usage.
func TestReadPyTorchDevice(t *testing.T) {
	const dir = "testdata/pytorch/"
	for _, c := range []struct{ spec, want string }{
		{"two_devices.pickle?device=1", "a,0,64\n"},
		{"two_devices.pickle?device=cuda:0", "a,0,2048\na,1,1000\na,2,500\na,3,3000\nf,0,\nf,2,\na,4,400\ne\nf,3,\n"},
		{"v113_two_devices.pickle?device=1", "a,0,2097152\n"},
	} {
		w, err := Load(dir + c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := traceText(t, w.Trace); got != c.want || w.Spec != dir+c.spec {
			t.Errorf("%s: got\n%s\nwant\n%s", c.spec, got, c.want)
		}
	}
	_, err := Load(dir + "two_devices.pickle?device=gpu")
	var ue *UsageError
	const want = dir + `two_devices.pickle: device="gpu": want a device number, e.g. device=1 (devices with trace events: 0, 1)`
	if !errors.As(err, &ue) || err.Error() != want {
		t.Errorf("got %v, want UsageError %s", err, want)
	}
}

// TestReadPyTorchUnknownAction: entries with actions membench does not
// know are skipped and counted in warnings, one per action.
func TestReadPyTorchUnknownAction(t *testing.T) {
	w, err := Load("testdata/pytorch/unknown_action.pickle")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`skipped 2 trace entries with unknown action "teleport" (first at device_traces[0][2])`,
		`skipped 1 trace entry with unknown action "warp" (first at device_traces[0][4])`,
	}
	if got := w.Warnings(); !slices.Equal(got, want) {
		t.Errorf("warnings %q, want %q", got, want)
	}
	// The teleported alloc at BASE+512 is missing: its free makes it a
	// tensor allocated before the recording (id 1).
	const trace = "a,0,2048\na,1,3000\na,2,1000\na,3,500\nf,0,\nf,3,\na,4,400\ne\nf,1,\n"
	if got := traceText(t, w.Trace); got != trace || w.Trace.OOMs != 1 {
		t.Errorf("got\n%s\n%d OOMs, want\n%s\n1 OOM", got, w.Trace.OOMs, trace)
	}
}

// snapshotPickle writes, as Python's pickle protocol 4 would, a snapshot
// whose device trace holds n alloc/free_requested/free_completed entries
// with three stack frames each, as _dump_snapshot writes them: every dict,
// list and string is memoized, keys and actions are shared, each frame's
// file name is a string of its own.
func snapshotPickle(n int) []byte {
	var b []byte
	memo := map[string]uint32{} // shared strings' memo slots
	next := uint32(0)           // the next memo slot
	// open starts an empty dict or list, memoized.
	open := func(op byte) {
		b = append(b, op, 0x94)
		next++
	}
	str := func(s string, share bool) {
		if i, ok := memo[s]; ok {
			b = append(b, 'j')
			b = binary.LittleEndian.AppendUint32(b, i)
			return
		}
		if len(s) < 256 {
			b = append(b, 0x8c, byte(len(s)))
		} else {
			b = append(b, 'X')
			b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		}
		b = append(b, s...)
		b = append(b, 0x94) // MEMOIZE
		if share {
			memo[s] = next
		}
		next++
	}
	integer := func(v int64) {
		switch {
		case v >= 0 && v < 256:
			b = append(b, 'K', byte(v))
		case v >= 0 && v < 1<<16:
			b = append(b, 'M', byte(v), byte(v>>8))
		case v >= -1<<31 && v < 1<<31:
			b = append(b, 'J')
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		default:
			b = append(b, 0x8a, 8)
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
	}
	b = append(b, 0x80, 4)
	open('}')
	b = append(b, '(')
	str("segments", true)
	open(']')
	str("device_traces", true)
	open(']')
	open(']')
	b = append(b, '(')
	const base = 0x7f0000000000
	for k := 0; k < n; k++ {
		if k%1000 == 0 && k > 0 {
			b = append(b, 'e', '(') // APPENDS in batches, as pickle does
		}
		tensor := int64(k / 3)
		action := [3]string{"alloc", "free_requested", "free_completed"}[k%3]
		open('}')
		b = append(b, '(')
		str("action", true)
		str(action, true)
		str("addr", true)
		integer(base + tensor%64*(1<<20))
		str("size", true)
		integer(4096 + tensor%1000*512)
		str("stream", true)
		integer(0)
		str("time_us", true)
		integer(1_700_000_000_000_000 + int64(k))
		str("frames", true)
		open(']')
		b = append(b, '(')
		for f := 0; f < 3; f++ {
			open('}')
			b = append(b, '(')
			str("filename", true)
			str("/usr/lib/python3/dist-packages/torch/nn/modules/module.py", false)
			str("line", true)
			integer(int64(1500 + f))
			str("name", true)
			str("_call_impl", true)
			b = append(b, 'u')
		}
		b = append(b, 'e', 'u')
	}
	b = append(b, 'e', 'a', 'u', '.')
	return b
}

// BenchmarkReadPyTorch reads a snapshot of MEMBENCH_SNAPSHOT_ENTRIES
// entries (default 100000; 4000000 make a 1 GB file) and reports the
// file's size and the process's peak resident memory.
func BenchmarkReadPyTorch(b *testing.B) {
	n := 100000
	if s := os.Getenv("MEMBENCH_SNAPSHOT_ENTRIES"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	n -= n % 3 // whole alloc/free_requested/free_completed triples
	data := bytes.Clone(snapshotPickle(n))
	// Count only the reader's memory: the input as Load holds it, and what
	// it builds (writing 5 to clear_refs resets the peak).
	debug.FreeOSMemory()
	resetPeakRSS := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		tr, err := parsePyTorch(data, "big", "")
		if err != nil {
			b.Fatal(err)
		}
		if len(tr.Events) != n/3*2 {
			b.Fatalf("%d events, want %d", len(tr.Events), n/3*2)
		}
	}
	b.ReportMetric(float64(len(data))/(1<<20), "file-MiB")
	if resetPeakRSS == nil {
		b.ReportMetric(float64(peakRSS(b))/(1<<20), "peak-RSS-MiB")
	}
}

// peakRSS returns the process's peak resident memory (Linux's VmHWM).
func peakRSS(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status")
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	return 0
}

// TestSnapshotDecoder: the streaming decoder reads every fixture as
// gopickle does, traces, counts, warnings and errors alike, and takes
// the fixtures it should (all but those calling Python classes).
func TestSnapshotDecoder(t *testing.T) {
	files, err := filepath.Glob("testdata/pytorch/*.pickle")
	if err != nil || len(files) < 10 {
		t.Fatalf("%d fixtures: %v", len(files), err)
	}
	files = append(files, "testdata/pytorch/two_devices.pickle?device=1", "testdata/pytorch/bad_device1.pickle?device=1")
	for _, spec := range files {
		path, device, _ := strings.Cut(spec, "?device=")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		dec := snapshotDecoder{data: data, name: path}
		if _, err := dec.decode(); err != nil {
			t.Errorf("%s: the streaming decoder refuses it: %v", path, err)
		}
		show := func(tr *Trace, err error) string {
			if err != nil {
				return "error: " + err.Error()
			}
			return fmt.Sprintf("%s%d OOMs, warnings %q, settings %q", traceText(t, tr), tr.OOMs, tr.Warnings, tr.AllocatorSettings)
		}
		got := show(parsePyTorchWith(data, path, device, true))
		want := show(parsePyTorchWith(data, path, device, false))
		if got != want {
			t.Errorf("%s: streamed\n%s\ngopickle\n%s", spec, got, want)
		}
	}
	// A trace entry's error names its device once the device is known.
	_, err = Load("testdata/pytorch/bad_device1.pickle?device=1")
	const want = `testdata/pytorch/bad_device1.pickle: device_traces[1][1] (alloc): address 0x7f0000000000 is still allocated (since device_traces[1][0] (alloc))`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// TestReadPyTorchStacks checks that each allocation keeps its recorded
// stack, each distinct stack once, in both decoders.
func TestReadPyTorchStacks(t *testing.T) {
	data := snapshotPickle(9) // three tensors, three frames each
	for _, stream := range []bool{true, false} {
		tr, err := parsePyTorchWith(data, "x.pickle", "", stream)
		if err != nil {
			t.Fatal(err)
		}
		want := "_call_impl  /usr/lib/python3/dist-packages/torch/nn/modules/module.py:1500\n" +
			"_call_impl  /usr/lib/python3/dist-packages/torch/nn/modules/module.py:1501\n" +
			"_call_impl  /usr/lib/python3/dist-packages/torch/nn/modules/module.py:1502"
		if len(tr.Stacks) != 1 || tr.Stacks[0] != want {
			t.Fatalf("stream=%v: stacks %q, want one: %q", stream, tr.Stacks, want)
		}
		if len(tr.StackOf) != 3 || tr.StackOf[0] != 0 || tr.StackOf[1] != 0 || tr.StackOf[2] != 0 {
			t.Fatalf("stream=%v: StackOf %v, want [0 0 0]", stream, tr.StackOf)
		}
	}
	// A real snapshot, where ../shared is present.
	const real = "../../shared/workloads/pytorch-snapshots/silmont_mem_snapshot.pickle"
	if _, err := os.Stat(real); err != nil {
		t.Skip("../shared is absent")
	}
	w, err := Load(real)
	if err != nil {
		t.Fatal(err)
	}
	with := 0
	for _, k := range w.Trace.StackOf {
		if k >= 0 {
			with++
			if int(k) >= len(w.Trace.Stacks) || w.Trace.Stacks[k] == "" {
				t.Fatalf("stack index %d of %d", k, len(w.Trace.Stacks))
			}
		}
	}
	if with == 0 {
		t.Fatalf("no allocation of %s has a stack", real)
	}
	t.Logf("%d of %d allocations have stacks; %d distinct", with, len(w.Trace.StackOf), len(w.Trace.Stacks))
}
