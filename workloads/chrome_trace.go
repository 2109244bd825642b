package workloads

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"

	gojson "github.com/goccy/go-json"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// FormatChrome is a Chrome trace / Kineto JSON file, as torch.profiler's
// export_chrome_trace writes it.
const FormatChrome = "chrome-trace"

// isChromeTrace tells a Chrome trace from membench JSON: a bare array of
// events, or an object holding "traceEvents".
func isChromeTrace(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n\xef\xbb\xbf")
	return len(t) > 0 && (t[0] == '[' || t[0] == '{' && bytes.Contains(data, []byte(`"traceEvents"`)))
}

// chromeEvent holds the fields of a trace event that the reader uses.
// Numbers stay raw, so that both decoders check their range alike (one
// would wrap 2^64 to 0 where the other fails).
type chromeEvent struct {
	Name string          `json:"name"`
	Ts   json.RawMessage `json:"ts"`
	Args *struct {
		Bytes      chromeNum `json:"Bytes"`
		Addr       chromeNum `json:"Addr"`
		DeviceType chromeNum `json:"Device Type"`
		DeviceID   chromeNum `json:"Device Id"`
	} `json:"args"`
}

// chromeNum is a raw JSON value; nil when absent or null.
type chromeNum []byte

func (n *chromeNum) UnmarshalJSON(b []byte) error {
	if string(b) != "null" {
		*n = append((*n)[:0], b...)
	}
	return nil
}

// chromeArg reads the integer arg field in [lo, hi], or says what is wrong.
func chromeArg(field string, raw chromeNum, lo, hi int64) (int64, string) {
	col := fmt.Sprintf("field %q", "args."+field)
	if len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		if bytes.ContainsAny(raw, ".eE") {
			return 0, fmt.Sprintf("%s: want an integer, got the number %s", col, Clip(raw))
		}
		v, err := strconv.ParseInt(string(raw), 10, 64)
		switch {
		case err != nil && raw[0] == '-', err == nil && v < lo:
			return 0, fmt.Sprintf("%s: %s is below the least allowed, %d", col, Clip(raw), lo)
		case err != nil, v > hi:
			return 0, fmt.Sprintf("%s: %s overflows (max %d)", col, Clip(raw), hi)
		}
		return v, ""
	}
	return 0, fmt.Sprintf("%s: want an integer, got %s", col, jsonGot(jsonValueKind(raw)))
}

// chromeAddr reads args.Addr, an address of 64 bits.
func chromeAddr(raw chromeNum) (uint64, string) {
	if len(raw) > 0 && raw[0] >= '0' && raw[0] <= '9' && !bytes.ContainsAny(raw, ".eE") {
		v, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil {
			return 0, fmt.Sprintf("field %q: %s overflows (max %d)", "args.Addr", Clip(raw), uint64(math.MaxUint64))
		}
		return v, ""
	}
	_, msg := chromeArg("Addr", raw, 0, 0)
	return 0, msg
}

// jsonValueKind names the kind of a raw JSON value as UnmarshalTypeError
// does: "string", "object", "array", "bool" or "number".
func jsonValueKind(raw []byte) string {
	switch {
	case len(raw) == 0:
		return "nothing"
	case raw[0] == '"':
		return "string"
	case raw[0] == '{':
		return "object"
	case raw[0] == '[':
		return "array"
	case raw[0] == 't' || raw[0] == 'f':
		return "bool"
	}
	return "number"
}

// chromeDeviceTypes names Kineto's device types (c10::DeviceType values).
var chromeDeviceTypes = map[int]string{0: "cpu", 1: "cuda", 2: "mkldnn", 3: "opengl", 4: "opencl", 5: "ideep", 6: "hip", 7: "fpga", 8: "maia", 9: "xla", 10: "vulkan", 11: "metal", 12: "xpu", 13: "mps", 14: "meta", 15: "hpu", 16: "ve", 17: "lazy", 18: "ipu", 19: "mtia", 20: "privateuseone"}

// ChromeDevice names a device of a Chrome trace as "cpu" or "cuda:0".
func chromeDevice(typ, id int) string {
	name, ok := chromeDeviceTypes[typ]
	if !ok {
		name = "device-type-" + strconv.Itoa(typ)
	}
	if id < 0 {
		return name
	}
	return name + ":" + strconv.Itoa(id)
}

// ReadChromeTrace reads the "[memory]" events of a Chrome trace (the JSON
// that torch.profiler's export_chrome_trace writes with
// profile_memory=True): args "Addr", "Bytes" (negative for a free),
// "Device Type" and "Device Id". Other events are ignored. Events are taken
// in timestamp order (ties in file order). device selects one device, as
// "cpu" or "cuda:0"; empty means the only device the trace has memory
// events for (a trace with several must name one).
//
// An allocation is a tensor; a free of its address frees it. A free of an
// address the trace never allocated was allocated before profiling began:
// like the PyTorch snapshot reader, the reader allocates it at the start.
// [memory] events name no stream, so the trace is on stream 0 and its
// frees complete at once (DESIGN §11).
func ReadChromeTrace(r io.Reader, name, device string) (*Trace, error) {
	data, err := readAll(r, name)
	if err != nil {
		return nil, err
	}
	t, _, err := parseChromeTrace(data, name, device)
	return t, err
}

// notEvents explains an item of the event array that is not an object (a
// JSON value of kind value, as json.UnmarshalTypeError names it) at off.
// A bare array of such items is not a Chrome trace at all, and not any
// other format membench reads either.
func notEvents(fail func(int64, string, ...any) error, off int64, value string, bare bool) error {
	if bare {
		return fail(off, "not a format membench reads: a JSON array holding %s, where a Chrome trace holds trace events (objects); want %s", jsonPlural(value), formatsWanted)
	}
	return fail(off, `"traceEvents": the array holds %s, want trace events (objects)`, jsonPlural(value))
}

// jsonPlural names many JSON values of the kind json.UnmarshalTypeError
// calls value.
func jsonPlural(value string) string {
	switch kind, _, _ := strings.Cut(value, " "); kind {
	case "number":
		return "numbers"
	case "string":
		return "strings"
	case "array":
		return "arrays"
	case "bool":
		return "true or false values"
	}
	return value + " values"
}

// jsonDecoder is what the reader needs of a streaming JSON decoder; the
// standard library's and goccy/go-json's both provide it.
type jsonDecoder interface {
	Token() (json.Token, error)
	More() bool
	Decode(v any) error
	InputOffset() int64
}

func newStdDecoder(data []byte) jsonDecoder {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d
}

type fastDecoder struct{ *gojson.Decoder }

func (d fastDecoder) Token() (json.Token, error) {
	t, err := d.Decoder.Token()
	if dl, ok := t.(gojson.Delim); ok {
		return json.Delim(dl), err
	}
	return t, err
}

func newFastDecoder(data []byte) jsonDecoder {
	d := gojson.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return fastDecoder{d}
}

// parseChromeTrace decodes with goccy/go-json, three times faster on
// traces of hundreds of megabytes; should that fail, it decodes again with
// the standard library, whose errors name the field and offset exactly.
func parseChromeTrace(data []byte, name, device string) (*Trace, *Problem, error) {
	if t, p, err := parseChromeWith(newFastDecoder, data, name, device); err == nil {
		return t, p, nil
	}
	return parseChromeWith(newStdDecoder, data, name, device)
}

func parseChromeWith(newDecoder func([]byte) jsonDecoder, data []byte, name, device string) (*Trace, *Problem, error) {
	data = bytes.TrimPrefix(data, []byte(BOM))
	r := &chromeReader{data: data, name: name, lc: lineCounter{data: data}, dec: newDecoder(data)}
	if err := r.openEvents(); err != nil {
		return nil, nil, err
	}
	mem, devices, err := r.readEvents()
	if err != nil {
		return nil, nil, err
	}
	if device, err = r.chooseDevice(devices, device); err != nil {
		return nil, nil, err
	}
	t, lines, err := r.trace(mem, device)
	if err != nil {
		return nil, nil, err
	}
	p, _, err := traceProblem(t, lines, 0)
	if err != nil {
		return nil, nil, err
	}
	return t, p, nil
}

// chromeReader is the state of parseChromeWith.
type chromeReader struct {
	data []byte
	name string
	lc   lineCounter
	dec  jsonDecoder
	bare bool // the file is a bare array of events
}

// chromeMem is a [memory] event.
type chromeMem struct {
	ts     float64
	line   int32
	bytes  int64
	addr   uint64
	device string
}

func (r *chromeReader) fail(off int64, format string, args ...any) error {
	return &InputError{File: r.name, Line: r.lc.line(off), Msg: fmt.Sprintf(format, args...)}
}

// openEvents reads up to the first event: into the bare array, or into
// the "traceEvents" array of the top-level object.
func (r *chromeReader) openEvents() error {
	dec := r.dec
	tok, err := dec.Token()
	if err != nil {
		return JSONError(r.name, r.data, err)
	}
	r.bare = tok == json.Delim('[')
	if r.bare {
		return nil
	}
	if tok != json.Delim('{') {
		return r.fail(0, "not a Chrome trace: want a JSON object with \"traceEvents\" or an array of events")
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return JSONError(r.name, r.data, err)
		}
		if k == "traceEvents" {
			off := dec.InputOffset()
			if t, err := dec.Token(); err != nil || t != json.Delim('[') {
				if err != nil {
					return JSONError(r.name, r.data, err)
				}
				return r.fail(off, `"traceEvents": want an array of events`)
			}
			return nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return JSONError(r.name, r.data, err)
		}
	}
	return r.fail(0, `not a Chrome trace: the object has no "traceEvents"`)
}

// readEvents reads the array of events, and returns the [memory] ones and
// how many each device has.
func (r *chromeReader) readEvents() ([]chromeMem, map[string]int, error) {
	var mem []chromeMem
	devices := map[string]int{}
	items, named := 0, 0
	events := int64(0)
	defer func() { readStats.entries.Add(events) }()
	for r.dec.More() {
		events++
		off := r.dec.InputOffset()
		var ev chromeEvent
		if err := r.dec.Decode(&ev); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field == "" {
				// The item itself is no object: no trace event at all.
				return nil, nil, notEvents(r.fail, skipSpace(r.data, off), te.Value, r.bare)
			}
			return nil, nil, JSONError(r.name, r.data, err)
		}
		items++
		if ev.Name != "" {
			named++
		}
		if ev.Name != "[memory]" {
			continue
		}
		m, err := r.memoryEvent(&ev, skipSpace(r.data, off))
		if err != nil {
			return nil, nil, err
		}
		devices[m.device]++
		mem = append(mem, m)
	}
	if len(devices) == 0 && r.bare && items > 0 && named == 0 {
		return nil, nil, r.fail(0, `not a format membench reads: a JSON array whose items are not trace events (none has a "name"); want %s`, formatsWanted)
	}
	if len(devices) == 0 {
		return nil, nil, r.fail(0, "the trace has no [memory] events: record it with torch.profiler.profile(profile_memory=True)")
	}
	return mem, devices, nil
}

// memoryEvent checks and converts the [memory] event ev, which starts at
// offset off.
func (r *chromeReader) memoryEvent(ev *chromeEvent, off int64) (chromeMem, error) {
	a := ev.Args
	if a != nil && a.Bytes != nil && a.Addr == nil {
		return chromeMem{}, r.fail(off, `[memory] event has "Bytes" but no "Addr": the profiler that wrote this trace did not record addresses, `+
			`and membench needs them to tell which allocation each free releases; record the trace again with a torch.profiler that writes "Addr"`)
	}
	if a == nil || a.Bytes == nil || a.Addr == nil {
		return chromeMem{}, r.fail(off, `[memory] event: want args "Addr" and "Bytes"`)
	}
	ts, err := strconv.ParseFloat(strings.Trim(string(ev.Ts), `"`), 64)
	if err != nil {
		return chromeMem{}, r.fail(off, `[memory] event: "ts": want a number, got %s`, Echo(ev.Ts))
	}
	var field, msg string // the first bad field, and what is wrong
	check := func(f, m string) {
		if msg == "" && m != "" {
			field, msg = f, m
		}
	}
	nbytes, m := chromeArg("Bytes", a.Bytes, -math.MaxInt64, math.MaxInt64)
	check("Bytes", m)
	addr, m := chromeAddr(a.Addr)
	check("Addr", m)
	dt, id := int64(0), int64(-1)
	if a.DeviceType != nil {
		dt, m = chromeArg("Device Type", a.DeviceType, 0, math.MaxInt32)
		check("Device Type", m)
	}
	if a.DeviceID != nil {
		id, m = chromeArg("Device Id", a.DeviceID, -1, math.MaxInt32)
		check("Device Id", m)
	}
	if msg != "" {
		// Point at the field, as encoding/json's errors do.
		if k := bytes.Index(r.data[off:r.dec.InputOffset()], []byte(strconv.Quote(field))); k >= 0 {
			off += int64(k)
		}
		return chromeMem{}, r.fail(off, "%s", msg)
	}
	return chromeMem{ts, int32(r.lc.line(off)), nbytes, addr, chromeDevice(int(dt), int(id))}, nil
}

// chooseDevice returns the device to read: device, or else the only one
// the trace has memory events for.
func (r *chromeReader) chooseDevice(devices map[string]int, device string) (string, error) {
	names := make([]string, 0, len(devices))
	for d := range devices {
		names = append(names, d)
	}
	slices.Sort(names)
	switch {
	case device == "" && len(devices) > 1:
		return "", &InputError{File: r.name, Msg: fmt.Sprintf("memory events on %d devices (%s): choose one with ?device=NAME", len(devices), strings.Join(names, ", "))}
	case device == "":
		return names[0], nil
	case devices[device] == 0:
		return "", &InputError{File: r.name, Msg: fmt.Sprintf("no memory events on device %q (the trace has %s)", device, strings.Join(names, ", "))}
	}
	return device, nil
}

// trace turns the memory events of device, in timestamp order (ties in
// file order), into a trace, and returns the line of each of its events.
func (r *chromeReader) trace(mem []chromeMem, device string) (*Trace, []int32, error) {
	failLine := func(line int32, format string, args ...any) error {
		return &InputError{File: r.name, Line: int(line), Msg: fmt.Sprintf(format, args...)}
	}
	slices.SortStableFunc(mem, func(a, b chromeMem) int { return cmp.Compare(a.ts, b.ts) })
	t := &Trace{Name: r.name}
	var pre []Event
	var lines, preLines []int32
	live := map[uint64]int{}
	nextID := 0
	for _, m := range mem {
		if m.device != device {
			continue
		}
		line := m.line
		switch {
		case m.bytes > 0:
			if _, ok := live[m.addr]; ok {
				return nil, nil, failLine(line, "[memory] alloc at address 0x%x, which is still allocated", m.addr)
			}
			live[m.addr] = nextID
			t.Events = append(t.Events, Event{Kind: Alloc, ID: nextID, Size: m.bytes})
			lines = append(lines, line)
			nextID++
		case m.bytes < 0:
			id, ok := live[m.addr]
			if !ok { // allocated before profiling began
				id = nextID
				nextID++
				pre = append(pre, Event{Kind: Alloc, ID: id, Size: -m.bytes})
				preLines = append(preLines, line)
			}
			delete(live, m.addr)
			t.Events = append(t.Events, Event{Kind: Free, ID: id})
			lines = append(lines, line)
		}
	}
	t.Events = append(pre, t.Events...)
	return t, append(preLines, lines...), nil
}

// skipSpace returns the offset of the first non-blank byte at or after off
// (a decoder's offset sits before the separator and blanks).
func skipSpace(data []byte, off int64) int64 { return skipSeparators(data, off, " \t\r\n,") }

// skipSeparators returns the offset of the first byte at or after off
// that is not one of seps.
func skipSeparators(data []byte, off int64, seps string) int64 {
	for off < int64(len(data)) && strings.IndexByte(seps, data[off]) >= 0 {
		off++
	}
	return off
}
