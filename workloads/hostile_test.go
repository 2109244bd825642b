package workloads

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"membench/internal/hostile"
)

// hostileSeeds returns the committed hostile inputs (internal/hostile)
// whose names start with prefix, as fuzz seeds.
func hostileSeeds(prefix string) [][]byte {
	var seeds [][]byte
	for _, f := range hostile.Files() {
		if f.Committed && strings.HasPrefix(f.Name, prefix) {
			seeds = append(seeds, f.Data())
		}
	}
	return seeds
}

// TestHostileWork bounds what the readers did on each hostile input by
// what they were given, not by time: a gzip file expands to at most the
// limit, and the entries decoded (snapshot conversion steps, FlatBuffer
// vector elements, trace events) stay within the per-byte budgets of the
// bytes read. Before the bounds, the shared history cost entries^2
// steps, the shared TFLite inputs operators^2 elements, the ONNX model
// whose nodes all read one value of a huge rank nodes*rank steps of
// shape inference, and the bomb expanded whole. cmd/membench's TestHostileCorpus checks each message.
func TestHostileWork(t *testing.T) {
	const limit = 1 << 20
	// budget is the most entries a reader may decode from n bytes: the
	// snapshot converter's budget, the largest, plus one dict past it.
	budget := func(n int64) int64 { return (pyStepsPerByte+1)*n + pyStepsFree }
	for _, f := range hostile.Files() {
		data := f.Data()
		readStats.bytes.Store(0)
		readStats.entries.Store(0)
		_, err := decode(data, f.Name, nil, limit)
		read, entries := readStats.bytes.Load(), readStats.entries.Load()
		var ie *InputError
		switch {
		case f.Name == "tflite-shared-inputs.tflite":
			// Valid: its one vector is read once, not once per operator.
			if err != nil || entries > read/4 {
				t.Errorf("%s: %d entries from %d bytes, want at most %d: %v", f.Name, entries, read, read/4, err)
			}
			continue
		case !errors.As(err, &ie):
			t.Errorf("%s: error %v, want an *InputError", f.Name, err)
		}
		if max := max(int64(len(data)), limit+1); read > max {
			t.Errorf("%s: read %d bytes, want at most %d", f.Name, read, max)
		}
		if entries > budget(read) {
			t.Errorf("%s: %d entries decoded from %d bytes, want at most %d", f.Name, entries, read, budget(read))
		}
		// Refused by the scan, before decoding anything.
		if strings.HasPrefix(f.Name, "pickle-") && !strings.Contains(f.Name, "shared") && entries != 0 {
			t.Errorf("%s: %d entries decoded, want 0", f.Name, entries)
		}
	}
}

// FuzzLoadBytes reads any file as Load does, gzip-compressed or not.
func FuzzLoadBytes(f *testing.F) {
	for _, s := range hostileSeeds("gzip-") {
		f.Add(s)
	}
	f.Add(hostile.Gzip([]byte("a,1,64\nf,1,\n")))
	f.Add([]byte("\x1f\x8b"))
	f.Add(tinyONNX(false).Bytes()) // sniffed by its content: the name is "f"
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := decode(data, "f", nil, 1<<20)
		mustInputError(t, err)
		if err == nil {
			checkValid(t, w.Problem)
		}
	})
}

// TestChromeRangeBothDecoders: goccy/go-json wrapped 2^64 to 0 where
// encoding/json failed; both now give the reader's own range error.
func TestChromeRangeBothDecoders(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{`"Addr": 18446744073709551616, "Bytes": 64`, `x.json:2: field "args.Addr": 18446744073709551616 overflows (max 18446744073709551615)`},
		{`"Addr": -1, "Bytes": 64`, `x.json:2: field "args.Addr": -1 is below the least allowed, 0`},
		{`"Addr": 1, "Bytes": -9223372036854775808`, `x.json:2: field "args.Bytes": -9223372036854775808 is below the least allowed, -9223372036854775807`},
		{`"Addr": 1, "Bytes": 64, "Device Type": 9223372036854775808`, `x.json:2: field "args.Device Type": 9223372036854775808 overflows (max 2147483647)`},
		{`"Addr": 1, "Bytes": 64, "Device Id": -2`, `x.json:2: field "args.Device Id": -2 is below the least allowed, -1`},
		{`"Addr": 1, "Bytes": 1.5`, `x.json:2: field "args.Bytes": want an integer, got the number 1.5`},
		{`"Addr": 1, "Bytes": true`, `x.json:2: field "args.Bytes": want an integer, got true or false`},
	} {
		data := hostile.ChromeTrace(tc.args)
		for name, dec := range map[string]func([]byte) jsonDecoder{"goccy": newFastDecoder, "std": newStdDecoder} {
			_, _, err := parseChromeWith(dec, data, "x.json", "")
			if err == nil || err.Error() != tc.want {
				t.Errorf("%s, %s decoder: %v\n  want %s", tc.args, name, err, tc.want)
			}
		}
	}
}

// TestPickleNumbersByLength: integers are refused by their length, before
// conversion, only when no 64-bit value has that length; text arguments
// must be the numbers their opcodes take.
func TestPickleNumbersByLength(t *testing.T) {
	padded := hostile.Long4Size(9) // 0x11 x8 then 0x01: past 64 bits
	padded[len(padded)-6] = 0      // now 0x11 x8 then 0x00 (before "ueeu."): sign extension only
	const past = "x: not a memory snapshot: byte 86 holds an integer of %s, past the 64 bits of every number a snapshot holds"
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"LONG4 of 9 bytes", hostile.Long4Size(9), fmt.Sprintf(past, "9 bytes (LONG4)")},
		{"LONG4 padded to 9 bytes", padded, ""},
		{"INT 2^63", hostile.TextInt("9223372036854775808"), fmt.Sprintf(past, "19 digits (INT)")},
		{"INT with leading zeros", hostile.TextInt("000000000000000000000064"), ""},
		{"INT -", hostile.TextInt("-"), `x: not a valid pickle: INT at byte 86: want a decimal integer, got "-"`},
		{"LONG of 21 digits", hostile.TextLong(21), fmt.Sprintf(past, "21 digits (LONG)")},
		{"GET abc", []byte("(g abc\n."), `x: not a valid pickle: GET at byte 1: want a memo index (a decimal number), got " abc"`},
		{"FLOAT x", []byte("(Fx\n."), `x: not a valid pickle: FLOAT at byte 1: want a decimal number, got "x"`},
	} {
		_, err := parsePyTorch(tc.data, "x", "")
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: got %q\n  want %q", tc.name, got, tc.want)
		}
	}
}

// TestGunzipMemory: a gzip bomb is refused by a counting pass that holds
// only its small buffer, and a valid file is held once, in one slice of
// its exact size (growing a slice by doubling held up to twice that).
func TestGunzipMemory(t *testing.T) {
	const limit = 32 << 20
	compress := func(n int) []byte {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
		zw.Write(make([]byte, n))
		zw.Close()
		return b.Bytes()
	}
	allocated := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	bomb := compress(4 * limit)
	if got := allocated(func() {
		if _, err := gunzip(bomb, "bomb.gz", limit); err == nil {
			t.Error("a file expanding to 4 times the limit was accepted")
		}
	}); got > 4<<20 {
		t.Errorf("refusing a bomb allocated %d bytes, want at most 4 MiB (the limit is %d)", got, limit)
	}
	valid := compress(limit - 1)
	var out []byte
	if got := allocated(func() {
		var err error
		if out, err = gunzip(valid, "valid.gz", limit); err != nil {
			t.Error(err)
		}
	}); got > limit+(4<<20) {
		t.Errorf("reading %d bytes allocated %d, want at most %d", limit-1, got, limit+(4<<20))
	}
	if len(out) != limit-1 || cap(out) != limit-1 {
		t.Errorf("got %d bytes in a slice of %d, want %d in one of exactly that size", len(out), cap(out), limit-1)
	}
}
