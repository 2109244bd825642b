package workloads

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// kinetoTrace is shaped like torch.profiler's export_chrome_trace output
// with profile_memory=True: an object with metadata before "traceEvents",
// operator events between the [memory] instants, timestamps as numbers.
const kinetoTrace = `{
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "GPU"}],
  "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": 10, "dur": 3, "args": {"External id": 1}},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 11,
    "args": {"Total Reserved": 0, "Total Allocated": 512, "Bytes": 512, "Addr": 4096, "Device Type": 0, "Device Id": -1}},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 13,
    "args": {"Bytes": 256, "Addr": 8192, "Device Type": 0, "Device Id": -1}},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 12,
    "args": {"Bytes": -64, "Addr": 100, "Device Type": 0, "Device Id": -1}},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 14,
    "args": {"Bytes": -512, "Addr": 4096, "Device Type": 0, "Device Id": -1}},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 15,
    "args": {"Bytes": 1024, "Addr": 4096, "Device Type": 1, "Device Id": 0}},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 16,
    "args": {"Bytes": 2048, "Addr": 4096, "Device Type": 0, "Device Id": -1}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 17, "dur": 1}
  ],
  "traceName": "x.pt.trace.json"
}`

func TestChromeTrace(t *testing.T) {
	cases := []struct {
		device, want string
	}{
		// cpu, in timestamp order, ids in order of first appearance: the
		// free of 0x64 at ts 12 (never allocated: it predates the profile)
		// gets its allocation put at the start.
		{"cpu", "a,1,64\na,0,512\nf,1,\na,2,256\nf,0,\na,3,2048\n"},
		{"cuda:0", "a,0,1024\n"},
	}
	for _, c := range cases {
		tr, p, err := parseChromeTrace([]byte(kinetoTrace), "k.json", c.device)
		if err != nil {
			t.Fatalf("%s: %v", c.device, err)
		}
		var b strings.Builder
		if err := WriteTrace(&b, tr); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%s: trace\n%s\nwant\n%s", c.device, b.String(), c.want)
		}
		if p.Len() == 0 {
			t.Errorf("%s: empty problem", c.device)
		}
	}
	// The bare-array form, with a byte-order mark, through Load's sniffing.
	w, err := LoadBytes([]byte("\xef\xbb\xbf[{\"name\": \"[memory]\", \"ts\": 1, \"args\": {\"Bytes\": 8, \"Addr\": 1}}]"), "a.json")
	if err != nil || w.Format != FormatChrome || len(w.Trace.Events) != 1 {
		t.Fatalf("bare array: %v %+v", err, w)
	}
}

// noAddr is the end of the message for a trace without addresses.
const noAddr = `the profiler that wrote this trace did not record addresses, and membench needs them to tell which allocation each free releases; ` +
	`record the trace again with a torch.profiler that writes "Addr"`

func TestChromeTraceErrors(t *testing.T) {
	cases := []struct {
		name, data, device, want string
	}{
		{"two devices", kinetoTrace, "", "k.json: memory events on 2 devices (cpu, cuda:0): choose one with ?device=NAME"},
		{"absent device", kinetoTrace, "cuda:1", `k.json: no memory events on device "cuda:1" (the trace has cpu, cuda:0)`},
		{"no memory", `{"traceEvents": [{"name": "aten::add", "ts": 1}]}`, "", "k.json:1: the trace has no [memory] events: record it with torch.profiler.profile(profile_memory=True)"},
		{"no events key", `{"other": 1}`, "", `k.json:1: not a Chrome trace: the object has no "traceEvents"`},
		{"no addresses", "{\"traceEvents\": [\n{\"name\": \"[memory]\", \"ts\": 1, \"args\": {\"Bytes\": 8}}]}", "", `k.json:2: [memory] event has "Bytes" but no "Addr": ` + noAddr},
		{"no addresses, bare", "[{\"name\": \"aten::add\", \"ts\": 0},\n\n{\"name\": \"[memory]\", \"ts\": 1, \"args\": {\"Bytes\": -8, \"Device Type\": 1}}]", "", `k.json:3: [memory] event has "Bytes" but no "Addr": ` + noAddr},
		{"missing bytes", "{\"traceEvents\": [\n{\"name\": \"[memory]\", \"ts\": 1, \"args\": {\"Addr\": 8}}]}", "", `k.json:2: [memory] event: want args "Addr" and "Bytes"`},
		{"missing args", "{\"traceEvents\": [\n{\"name\": \"[memory]\", \"ts\": 1}]}", "", `k.json:2: [memory] event: want args "Addr" and "Bytes"`},
		{"array of numbers", "[1, 2]", "", "k.json:1: not a format membench reads: a JSON array holding numbers, where a Chrome trace holds trace events (objects); want " + formatsWanted},
		{"array of arrays", "[\n[1, 2],\n[3]]", "", "k.json:2: not a format membench reads: a JSON array holding arrays, where a Chrome trace holds trace events (objects); want " + formatsWanted},
		{"array with a string", "[{\"name\": \"aten::add\", \"ts\": 0},\n\"x\"]", "", "k.json:2: not a format membench reads: a JSON array holding strings, where a Chrome trace holds trace events (objects); want " + formatsWanted},
		{"array of other objects", "[{\"size\": 4, \"first\": 0, \"last\": 1}]", "", `k.json:1: not a format membench reads: a JSON array whose items are not trace events (none has a "name"); want ` + formatsWanted},
		{"events not objects", "{\"traceEvents\": [\ntrue]}", "", `k.json:2: "traceEvents": the array holds true or false values, want trace events (objects)`},
		{"empty array", "[]", "", "k.json:1: the trace has no [memory] events: record it with torch.profiler.profile(profile_memory=True)"},
		{"bytes type", "{\"traceEvents\": [\n\n{\"name\": \"[memory]\", \"ts\": 1, \"args\": {\"Bytes\": \"8\", \"Addr\": 1}}]}", "", `k.json:3: field "args.Bytes": want an integer, got a string`},
		{"truncated", "{\"traceEvents\": [\n{\"name\": \"[memory]\", \"ts\": 1, \"ar", "", "k.json:2: unexpected end of JSON"},
		{"syntax", "{\"traceEvents\": [\n{\"name\": \"[memory]\", \"ts\": 1,, }]}", "", "k.json:2: invalid JSON: invalid character ',' looking for beginning of object key string"},
		{"double alloc", "{\"traceEvents\": [\n{\"name\": \"[memory]\", \"ts\": 1, \"args\": {\"Bytes\": 8, \"Addr\": 1}},\n{\"name\": \"[memory]\", \"ts\": 2, \"args\": {\"Bytes\": 8, \"Addr\": 1}}]}", "", "k.json:3: [memory] alloc at address 0x1, which is still allocated"},
	}
	for _, c := range cases {
		_, _, err := parseChromeTrace([]byte(c.data), "k.json", c.device)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.name, err, c.want)
		}
	}
}

// chromeTraceOf writes n alloc/free pairs as [memory] events, with an
// operator event between each, as torch.profiler interleaves them.
func chromeTraceOf(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"schemaVersion": 1, "traceEvents": [`)
	for i := range n {
		addr := 4096 * (i % 64)
		if i >= 64 {
			fmt.Fprintf(&b, "\n{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 7, \"tid\": 7, \"ts\": %d.5, \"args\": {\"Total Reserved\": 0, \"Total Allocated\": 0, \"Bytes\": -%d, \"Addr\": %d, \"Device Type\": 0, \"Device Id\": -1}},", 2*i, 64+i%64, addr)
		}
		fmt.Fprintf(&b, "\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::empty\", \"pid\": 7, \"tid\": 7, \"ts\": %d, \"dur\": 1, \"args\": {\"External id\": %d}},", 2*i, i)
		fmt.Fprintf(&b, "\n{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 7, \"tid\": 7, \"ts\": %d.7, \"args\": {\"Total Reserved\": 0, \"Total Allocated\": 0, \"Bytes\": %d, \"Addr\": %d, \"Device Type\": 0, \"Device Id\": -1}}", 2*i+1, 64+i%64, addr)
		if i < n-1 {
			b.WriteByte(',')
		}
	}
	b.WriteString("\n]}\n")
	return []byte(b.String())
}

func TestChromeTraceLarge(t *testing.T) {
	data := chromeTraceOf(1000)
	tr, p, err := parseChromeTrace(data, "big.json", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Events) != 1000+936 || p.Len() != 1000 {
		t.Fatalf("%d events, %d buffers", len(tr.Events), p.Len())
	}
}

// BenchmarkChromeTrace reads a trace of 10^6 [memory] events (half allocs,
// half frees) among 5*10^5 operator events.
func BenchmarkChromeTrace(b *testing.B) {
	data := chromeTraceOf(500_000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := parseChromeTrace(data, "big.json", ""); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzChromeTrace(f *testing.F) {
	f.Add([]byte(kinetoTrace), "cpu")
	f.Add(chromeTraceOf(70), "")
	for _, s := range hostileSeeds("chrome-") {
		f.Add(s, "")
	}
	f.Fuzz(func(t *testing.T, data []byte, device string) {
		_, p, err := parseChromeTrace(data, "fuzz.json", device)
		if err != nil {
			if _, ok := err.(*InputError); !ok {
				t.Fatalf("not an InputError: %T %v", err, err)
			}
			return
		}
		if err := checkProblem(p); err != nil {
			t.Fatalf("reader returned an invalid problem: %v", err)
		}
	})
}

// TestChromeTraceDeviceOption loads a trace file with ?device=, as a
// workload spec names it, and refuses options a format does not take.
func TestChromeTraceDeviceOption(t *testing.T) {
	path := t.TempDir() + "/k.json"
	if err := os.WriteFile(path, []byte(kinetoTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Load(path + "?device=cuda:0")
	if err != nil {
		t.Fatal(err)
	}
	if w.Spec != path+"?device=cuda:0" || w.Problem.Name != w.Spec || len(w.Trace.Events) != 1 {
		t.Errorf("spec %q, name %q, %d events", w.Spec, w.Problem.Name, len(w.Trace.Events))
	}
	if _, err := Load(path + "?colour=red"); err == nil || err.Error() != path+`: unknown option "colour" for a chrome-trace file (valid: device)` {
		t.Errorf("unknown option: %v", err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "choose one with ?device=NAME") {
		t.Errorf("no device: %v", err)
	}
}
