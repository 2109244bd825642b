package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"membench/internal/hostile"
)

// The hostile-input corpus (internal/hostile): inputs that exhausted memory
// or time, overflowed the stack or wrapped around before the readers
// bounded their work. The small ones are committed here (go test -update
// rewrites them from the generator); the large ones are generated into a
// temporary directory. workloads' TestHostileWork bounds what the readers
// did on each.
const hostileDir = "testdata/hostile/"

// hostileCases gives each file's extra flags for `plan --strategy naive`
// and the error it must give after the file's name ("" for none: the
// file is valid and read within bounds).
var hostileCases = map[string]struct {
	flags []string
	want  string
}{
	"gzip-bomb.gz":      {[]string{"--max-input", "1M"}, `: gzip: expands to more than the limit of 1 MiB (raise the limit with --max-input SIZE or the file option ?max-input=SIZE)`},
	"gzip-header.gz":    {nil, `: gzip: invalid header`},
	"gzip-trailing.gz":  {nil, `: gzip: trailing data after the compressed stream, at byte 49 of 66`},
	"gzip-truncated.gz": {nil, `: gzip: the file ends inside the compressed stream (truncated)`},
	// Nesting: refused before either pickle decoder sees it.
	"pickle-deep.pickle":     {nil, `: not a memory snapshot: containers nest deeper than 1000 levels at byte 3001 (a snapshot nests a few)`},
	"pickle-deep-1e7.pickle": {nil, `: not a memory snapshot: containers nest deeper than 1000 levels at byte 10001001 (a snapshot nests a few)`},
	"json-deep.json":         {nil, `:1: invalid JSON: arrays and objects nest deeper than 10000 levels`},
	"json-deep-1e7.json":     {nil, `:1: invalid JSON: arrays and objects nest deeper than 10000 levels`},
	"chrome-deep.json":       {nil, `:1: invalid JSON: arrays and objects nest deeper than 10000 levels`},
	"chrome-deep-1e7.json":   {nil, `:1: invalid JSON: arrays and objects nest deeper than 10000 levels`},
	// Amplification: shared lists and vectors.
	"pickle-shared-history.pickle":     {nil, `: segments[0].blocks[48].history[857]: the snapshot names the same lists or dicts over and over through the pickle memo: reading it would take more than 146776 steps, the limit for a file of its size`},
	"pickle-shared-history-big.pickle": {nil, `: segments[0].blocks[27].history[11218]: the snapshot names the same lists or dicts over and over through the pickle memo: reading it would take more than 2706776 steps, the limit for a file of its size`},
	"tflite-shared-inputs.tflite":      {nil, ""}, // read once, used by every operator
	"onnx-deep-groups.onnx":            {nil, `: byte 0: ModelProto field 105: wire type 3 (a group), which onnx.proto does not use: not a well-formed ONNX model (protobuf ModelProto, onnx.proto)`},
	"onnx-shared-rank.onnx":            {nil, `: byte 1433: node 89 (Relu): shape inference: the model names the same large values over and over: reading it would take more than 1861284 steps, the limit for a file of its size: not a well-formed ONNX model (protobuf ModelProto, onnx.proto)`},
	"tflite-shared-shape.tflite":       {nil, `: byte 32108: Tensor.shape: the model's tables point at the same vectors over and over: reading it would take more than 225968 vector elements, the limit for a file of its size: not a well-formed TFLite model (FlatBuffer, schema.fbs)`},
	// Huge numbers: refused by their length.
	"pickle-long4.pickle":         {nil, `: not a memory snapshot: byte 86 holds an integer of 9 bytes (LONG4), past the 64 bits of every number a snapshot holds`},
	"pickle-long4-10mb.pickle":    {nil, `: not a memory snapshot: byte 86 holds an integer of 10485760 bytes (LONG4), past the 64 bits of every number a snapshot holds`},
	"pickle-text-long.pickle":     {nil, `: not a memory snapshot: byte 86 holds an integer of 21 digits (LONG), past the 64 bits of every number a snapshot holds`},
	"pickle-text-long-4e6.pickle": {nil, `: not a memory snapshot: byte 86 holds an integer of 4000000 digits (LONG), past the 64 bits of every number a snapshot holds`},
	"pickle-text-int.pickle":      {nil, `: not a valid pickle: INT at byte 86: want a decimal integer, got "abc"`},
	// Wrap-around: the fast decoder accepted these.
	"chrome-addr-wrap.json":   {nil, `:2: field "args.Addr": 18446744073709551616 overflows (max 18446744073709551615)`},
	"chrome-device-type.json": {nil, `:2: field "args.Device Type": 9223372036854775808 overflows (max 2147483647)`},
}

func TestHostileCorpus(t *testing.T) {
	tmp := t.TempDir()
	committed := map[string]bool{}
	for _, f := range hostile.Files() {
		data := f.Data()
		path := filepath.Join(tmp, f.Name)
		if f.Committed {
			path = hostileDir + f.Name
			committed[f.Name] = true
			if *updateGolden {
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, data) {
				t.Errorf("%s is not what internal/hostile generates (go test -update rewrites it): %v", path, err)
				continue
			}
		} else if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, ok := hostileCases[f.Name]
		if !ok {
			t.Errorf("%s: no case", f.Name)
			continue
		}
		args := append(append([]string{"plan", "--strategy", "naive"}, c.flags...), path)
		r := membench(t, args...)
		if c.want == "" {
			if r.code != 0 {
				t.Errorf("membench %q: exit %d, want 0\nstderr: %s", args, r.code, r.stderr)
			}
			continue
		}
		if want := "membench: " + path + c.want + "\n"; r.code != 2 || r.stdout != "" || r.stderr != want {
			t.Errorf("membench %q: exit %d, stdout %.200q\nstderr: %s\n  want: %s", args, r.code, r.stdout, r.stderr, want)
		}
	}
	files, _ := filepath.Glob(hostileDir + "*")
	for _, f := range files {
		if !committed[filepath.Base(f)] {
			t.Errorf("%s is not in internal/hostile's corpus", f)
		}
	}
}

// TestMaxInput: every command that loads a workload takes --max-input, a
// file takes ?max-input=SIZE (which wins), and a plain file over the limit
// is refused before it is read.
func TestMaxInput(t *testing.T) {
	const bomb = hostileDir + "gzip-bomb.gz"
	over := ": gzip: expands to more than the limit of 1 MiB (raise the limit with --max-input SIZE or the file option ?max-input=SIZE)\n"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--strategy", "naive", "--max-input", "1M", bomb}, bomb + over},
		{[]string{"replay", "--allocator", "bfc", "--max-input", "1M", bomb}, bomb + over},
		{[]string{"gen", "--max-input", "1M", bomb}, bomb + over},
		{[]string{"validate", "--plan", "nonexistent.csv", "--max-input", "1M", bomb}, bomb + over},
		{[]string{"plan", "--strategy", "naive", "--max-input", "1G", bomb + "?max-input=1M"}, bomb + over},
		{[]string{"plan", "--strategy", "naive", "--max-input", "100", hostileDir + "chrome-addr-wrap.json"},
			hostileDir + "chrome-addr-wrap.json: the file holds 192 bytes, more than the limit of 100 bytes (raise the limit with --max-input SIZE or the file option ?max-input=SIZE)\n"},
		{[]string{"plan", "--strategy", "naive", "--max-input", "lots", bomb}, `--max-input "lots": want a positive byte size such as 64M or 16G` + "\n"},
		{[]string{"plan", "--strategy", "naive", bomb + "?max-input=0"}, bomb + `: max-input="0": want a positive byte size such as 64M or 16G` + "\n"},
	} {
		r := membench(t, tc.args...)
		if r.code != 2 || r.stderr != "membench: "+tc.want {
			t.Errorf("membench %q: exit %d, stderr %s  want: membench: %s", tc.args, r.code, r.stderr, tc.want)
		}
	}
	// Under the default limit the bomb's 16 MiB of comments are an empty
	// trace.
	if r := membench(t, "gen", "--format", "trace", bomb); r.code != 0 || r.stdout != "" {
		t.Errorf("gen %s: exit %d, stdout %.100q, stderr %s", bomb, r.code, r.stdout, r.stderr)
	}
}
