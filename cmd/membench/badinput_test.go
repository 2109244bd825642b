package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"membench/strategies"
	"membench/workloads"
)

// The malformed-input corpus: every reader and the config, each file with
// the one error it must give. Huge lines are generated below instead of
// committed.
const badDir = "testdata/badinput/"

// badInputArgs is the command that reads file: a config runs, a plan file
// is validated against complexCSV, anything else is planned.
func badInputArgs(t *testing.T, file string) []string {
	switch base := filepath.Base(file); {
	case strings.HasSuffix(base, ".toml"):
		return []string{"run", "--config", file, "--out", filepath.Join(t.TempDir(), "out")}
	case strings.HasPrefix(base, "plan-"):
		return []string{"validate", "--plan", file, complexCSV}
	}
	return []string{"plan", "--strategy", "naive", file}
}

// goInternals are texts of Go's own errors and types that users must
// never see.
var goInternals = []string{"&types.", "*types.", "Go struct field", "bufio.Scanner", "map[string]", "interface {}", "json: ", "toml: ", "time: "}

// checkBadInput runs the command for file and wants exit 2, nothing on
// stdout and exactly want (after "membench: ") on stderr.
func checkBadInput(t *testing.T, file, want string) {
	t.Helper()
	args := badInputArgs(t, file)
	r := membench(t, args...)
	if r.code != 2 || r.stdout != "" || r.stderr != "membench: "+want+"\n" {
		t.Errorf("membench %q: exit %d, stdout %q\nstderr: %s\n  want: membench: %s", args, r.code, r.stdout, r.stderr, want)
	}
	msg := strings.ReplaceAll(r.stderr, file, "FILE") // "x.json: " is no Go internal
	for _, g := range goInternals {
		if strings.Contains(msg, g) {
			t.Errorf("membench %q shows Go internals %q: %s", args, g, r.stderr)
		}
	}
}

func TestBadInputCorpus(t *testing.T) {
	strategyNames := strings.Join(strategies.Names(), ", ")
	cases := map[string]string{
		// TFLite records.
		"tflite-not-int.csv":  `3: last_task: want an integer, got "abc"`,
		"tflite-header.csv":   `1: unknown header "size,first,last": want size,first_task,last_task`,
		"tflite-columns.csv":  `3: want 3 columns (size,first_task,last_task), got 2`,
		"tflite-overflow.csv": `4: size: 99999999999999999999 overflows (max 9223372036854775807)`,
		"tflite-order.csv":    `2: last_task 2 is before first_task 5`,
		// MiniMalloc.
		"mm-dup-id.csv":    `4: id "0" repeats line 2`,
		"mm-half-open.csv": `2: upper 3 must be greater than lower 3 (the lifetime [lower, upper) is half-open)`,
		"mm-column.csv":    `1: unknown column "colour" in header "id,lower,upper,size,colour": want id,lower,upper,size[,alignment][,hint][,gaps][,offset] or buffer,start,end,size`,
		"mm-gap.csv":       `2: gap 0: window [0, 32) is not within [0, 16)`,
		// Traces.
		"trace-free.csv":     `3: free of id 2, which was never allocated`,
		"trace-event.csv":    `2: unknown event "x": want a,ID,BYTES[,STREAM] (alloc), f,ID,[STREAM] (free), v,ID,OF (view), r,ID,STREAM (record stream), s,STREAM (sync) or e (empty cache)`,
		"trace-negative.csv": `1: bytes: -64 is negative`,
		"trace-view.csv":     `2: want v,ID,OF, got "v,2"`,
		// membench JSON.
		"json-type.json":      `4: buffer 1: size: want an integer, got string "16"`,
		"json-field.json":     `3: buffer 0: unknown field "colour" (valid: id, label, size, first, last, align, gaps, offset, hint, memory)`,
		"json-syntax.json":    `3: invalid JSON: invalid character ',' looking for beginning of value`,
		"json-trailing.json":  `6: unexpected data after the JSON object`,
		"json-truncated.json": `4: unexpected end of JSON`,
		"json-dup-id.json":    `4: buffer 1: id 4 repeats buffer 0 on line 3`,
		"json-float.json":     `2: alignment: want an integer, got "1.5"`,
		// PyTorch snapshots: a pickle has no lines; errors name the entry.
		"pytorch-bigint.pickle":    `: device_traces[0][0] (alloc): field "size": 1267650600228229401496703205376 does not fit in 64 bits`,
		"pytorch-class.pickle":     `: not a valid pickle: it calls the Python class builtins.complex, which a memory snapshot never holds (only dicts, lists, strings and numbers)`,
		"pytorch-type.pickle":      `: device_traces[0][0] (alloc): field "size": want an integer, got set`,
		"pytorch-host.pickle":      `: no device memory recorded: device_traces has no entries and segments no blocks (a snapshot taken before any CUDA allocation, or of the host only)`,
		"pytorch-not-dict.pickle":  `: not a PyTorch memory snapshot: the pickle holds a list of int, want a dict with segments and device_traces (or PyTorch 1.13's list of segment dicts)`,
		"pytorch-truncated.pickle": `: not a valid pickle: truncated at byte 2`,
		"pytorch-reduce.pickle":    `: not a valid pickle: REDUCE requires a Callable object`,
		// Chrome traces (torch.profiler).
		"chrome-addr.json":      `3: [memory] event has "Bytes" but no "Addr": the profiler that wrote this trace did not record addresses, and membench needs them to tell which allocation each free releases; record the trace again with a torch.profiler that writes "Addr"`,
		"chrome-devices.json":   `: memory events on 2 devices (cpu, cuda:0): choose one with ?device=NAME`,
		"chrome-no-memory.json": `1: the trace has no [memory] events: record it with torch.profiler.profile(profile_memory=True)`,
		"chrome-truncated.json": `3: unexpected end of JSON`,
		"chrome-type.json":      `3: field "args.Bytes": want an integer, got a string`,
		// TFLite models (malformed FlatBuffers written by the reader's
		// tests, named .fb: the format is sniffed, and no real model is
		// committed): a FlatBuffer has no lines; errors name the byte or
		// the tensor.
		"tflitemodel-index.fb":     `: operator 1 names tensor 40, but subgraph 0 has 12 tensors`,
		"tflitemodel-truncated.fb": `: byte 136: Tensor points past the end of the file: not a well-formed TFLite model (FlatBuffer, schema.fbs)`,
		"tflitemodel-type.fb":      `: tensor 2 ("conv") has unknown type 99 (want a TensorType of schema.fbs, 0 to 22)`,
		// Plans read by validate --plan.
		"plan-type.json":    `3: field "offsets": want an integer, got a string`,
		"plan-syntax.json":  `2: invalid JSON: invalid character '6' after array element`,
		"plan-objects.json": `3: field "object_ids": want an array of integers, got a string`,
		"plan-offset.csv":   `3: offset "thirty-two": want a non-negative integer`,
		"plan-header.csv":   `1: header "buffer,where": want id,offset lines or a header naming columns id and offset`,
		"plan-repeat.csv":   `3: id 0 repeats line 1`,
		// Configs.
		"config-param.toml":     `4: workload "synthetic/chain?bogus=1": unknown parameter "bogus" (valid: max, min, n, seed)`,
		"config-value.toml":     `4: workload "synthetic/random-dag?n=-10": n=-10 must be in [0, 100000000]`,
		"config-strategy.toml":  `5: unknown strategy "greedy-by-sise" (valid: ` + strategyNames + `, exec:PATH)`,
		"config-allocator.toml": `3: allocator "bfc?memory_limit=lots": parameter memory_limit="lots": want a byte size such as 4096, 64K, 1G`,
		"config-twice.toml":     `2: workload "synthetic/chain" listed twice (first on line 2)`,
		"config-repeats.toml":   `2: repeats = 1000000000000: want 1 to 1000`,
		"config-timeout.toml":   `2: timeout = "2562047h47m16s": want at most 168h0m0s (a week)`,
		"config-max-n.toml":     `2: max_n "naive" = -1: want a buffer count from 0 (no limit) to 1099511627776`,
		"config-type.toml":      `2: samples: want an integer, got a string`,
		"config-key.toml":       `4: unknown key "repeat" (valid: name, seed, repeats, timeout, benchtime, samples, memory_limit, max_n, workloads, strategies, allocators)`,
		"config-syntax.toml":    `3: expected a comma (',') or array terminator (']'), but got 'w'`,
	}
	files, err := filepath.Glob(badDir + "*")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(cases) {
		t.Errorf("%d files in %s, %d cases: every file needs a case", len(files), badDir, len(cases))
	}
	for _, file := range files {
		want, ok := cases[filepath.Base(file)]
		if !ok {
			t.Errorf("%s: no case", file)
			continue
		}
		if want[0] != ':' {
			want = ":" + want // file:line
		}
		checkBadInput(t, file, file+want)
	}
}

// TestBadInputHugeLine: a 20 MiB field is echoed as its first 80
// characters and its length, by every reader and the config.
func TestBadInputHugeLine(t *testing.T) {
	dir := t.TempDir()
	const n = 20 << 20
	huge := strings.Repeat("x", n)
	echo := `"` + strings.Repeat("x", workloads.MaxEcho) + `…" (20971520 bytes)`
	for _, tc := range []struct{ name, content, want string }{
		{"tflite.csv", "size,first_task,last_task\n16,0,1\n" + huge + ",0,1\n", `:3: size: want an integer, got ` + echo},
		{"mm.csv", "id,lower,upper,size\n0,0,1," + huge + "\n", `:2: size: want an integer, got ` + echo},
		{"trace.csv", "a,1,64\nf," + huge + ",\n", `:2: id: want an integer, got ` + echo},
		{"overflow.csv", "a,1,9" + strings.Repeat("9", n-1) + "\n", `:1: bytes: 9` + strings.Repeat("9", workloads.MaxEcho-1) + `… (20971520 bytes) overflows (max 9223372036854775807)`},
		{"header.csv", huge + "\n", `:1: unknown header ` + echo + `: want a TFLite header size,first_task,last_task, a MiniMalloc header id,lower,upper,size[,alignment][,hint][,gaps][,offset] or buffer,start,end,size, trace lines a,ID,BYTES / f,ID, / v,ID,OF, a membench JSON object, a Chrome trace (a JSON object with "traceEvents" or an array of trace events), a PyTorch snapshot pickle, a .tflite model or an .onnx model`},
		{"p.json", "{\"buffers\": [\n{\"size\": \"" + huge + "\", \"first\": 0, \"last\": 1}]}", `:2: buffer 0: size: want an integer, got string ` + echo},
		{"key.json", "{\"buffers\": [],\n\"" + huge + "\": 1}", `:2: unknown field ` + echo + ` (valid: name, provenance, alignment, capacity, memories, buffers, persistent)`},
		{"plan-huge.csv", "id,offset\n0," + huge + "\n", `:2: offset ` + echo + `: want a non-negative integer`},
		// The TOML parser is slow on long strings: 1 MiB shows the cut.
		{"huge.toml", "strategies = [\"naive\"]\nworkloads = [\"" + huge[:1<<20] + "\"]\n",
			`:2: unknown workload "` + strings.Repeat("x", workloads.MaxEcho) + `…" (1048576 bytes): no such file or registered name (`},
	} {
		file := filepath.Join(dir, tc.name)
		if err := os.WriteFile(file, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(tc.name, ".toml") {
			// The list of valid names follows; check the start.
			r := membench(t, badInputArgs(t, file)...)
			if want := "membench: " + file + tc.want; r.code != 2 || !strings.HasPrefix(r.stderr, want) || len(r.stderr) > 2000 {
				t.Errorf("%s: exit %d, stderr %.300q, want prefix %q", tc.name, r.code, r.stderr, want)
			}
			continue
		}
		checkBadInput(t, file, file+tc.want)
	}
}

// TestBadInputBOM: a UTF-8 byte-order mark is accepted by every reader,
// plan files and configs.
func TestBadInputBOM(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, []byte(workloads.BOM+content), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	for name, content := range map[string]string{
		"tflite.csv": "size,first_task,last_task\n16,0,1\n",
		"mm.csv":     "id,lower,upper,size\n0,0,2,16\n",
		"trace.csv":  "a,0,16\nf,0,\n",
		"p.json":     `{"buffers": [{"size": 16, "first": 0, "last": 1}]}`,
	} {
		file := write(name, content)
		if r := membench(t, "plan", "--strategy", "naive", "--format", "csv", file); r.code != 0 || r.stdout != "id,offset\n0,0\n" {
			t.Errorf("%s with a BOM: exit %d, stdout %q, stderr %s", name, r.code, r.stdout, r.stderr)
		}
	}
	for name, content := range map[string]string{
		"plan.csv":  "id,offset\n0,0\n1,32\n2,80\n3,64\n4,88\n5,0\n6,64\n7,72\n8,0\n",
		"plan.json": `{"offsets": [0, 32, 80, 64, 88, 0, 64, 72, 0]}`,
	} {
		file := write(name, content)
		if r := membench(t, "validate", "--plan", file, complexCSV); r.code != 0 || !regexp.MustCompile(`(?m)^valid +yes$`).MatchString(r.stdout) {
			t.Errorf("%s with a BOM: exit %d, stdout %q, stderr %s", name, r.code, r.stdout, r.stderr)
		}
	}
	// A config with a BOM parses; its error (here a bad repeat count) is
	// then the first one.
	file := write("bom.toml", "repeats = 0.5\nstrategies = [\"naive\"]\nworkloads = [\"synthetic/chain\"]\n")
	checkBadInput(t, file, file+":1: repeats: want an integer, got a float")
}

// TestBadInputFlags: the flags that a config's bounds also hold.
func TestBadInputFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--repeats", "1000000000000"}, "--repeats 1000000000000: want 1 to 1000"},
		{[]string{"run", "--repeats", "-1"}, "--repeats -1: want 1 to 1000"},
		{[]string{"run", "--timeout", "2562047h47m16s"}, "--timeout 2562047h47m16s: want a positive duration up to 168h0m0s"},
		{[]string{"run", "--timeout", "-1s"}, "--timeout -1s: want a positive duration up to 168h0m0s"},
	} {
		r := membench(t, tc.args...)
		if r.code != 2 || !strings.HasPrefix(r.stderr, "membench: "+tc.want+"\n") {
			t.Errorf("membench %q: exit %d, stderr %q, want %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}
