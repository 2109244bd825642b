package workloads

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// jsonBuffer is one element of "buffers". Numbers stay raw so that their
// errors read like the CSV readers'.
type jsonBuffer struct {
	ID    json.RawMessage `json:"id"`
	Label *string         `json:"label"`
	Size  json.RawMessage `json:"size"`
	First json.RawMessage `json:"first"`
	Last  json.RawMessage `json:"last"`
}

const jsonTopFields = "name, provenance, alignment, capacity, buffers, persistent"
const jsonBufferFields = "id, label, size, first, last"

// ReadJSON reads a problem in membench JSON (schema in the package doc):
//
//	{"name": "...", "alignment": 128, "capacity": 1048576,
//	 "buffers": [{"id": 0, "size": 16, "first": 0, "last": 1}, ...]}
//
// Lifetimes are inclusive. Only "buffers" is required, and in each buffer
// size, first and last; id defaults to the buffer's index and label is
// optional. "persistent" lists the tensors kept outside the planned arena
// (Problem.Persistent) as buffers without labels. Unknown fields are
// refused, as are duplicate ids. "name" and
// "provenance" (an object saying where the problem came from: framework
// versions, model, command, date) are informational: the problem is named
// after the file.
func ReadJSON(r io.Reader, name string) (*Problem, error) {
	return readParsed(r, name, parseJSON)
}

func parseJSON(data []byte, name string) (*Problem, error) {
	data = bytes.TrimPrefix(data, []byte(BOM))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &InputError{File: name, Msg: `empty file: want a JSON object {"buffers": [...]}`}
	}
	r := newJSONReader(data, name)
	if err := r.delim('{', "top level"); err != nil {
		return nil, err
	}
	for r.dec.More() {
		if err := r.field(); err != nil {
			return nil, err
		}
	}
	return r.finish()
}

// jsonReader is the state of parseJSON: the decoder, and the problem and
// the line of every buffer read so far.
type jsonReader struct {
	data []byte
	name string
	// lc numbers every buffer's line in linear time: it counts on from
	// the last offset asked for.
	lc  lineCounter
	dec *json.Decoder

	p         *Problem
	seen      map[string]bool // top-level fields read
	labels    []string
	lines     []int
	hasLabels bool
}

func newJSONReader(data []byte, name string) *jsonReader {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	return &jsonReader{data: data, name: name, lc: lineCounter{data: data}, dec: dec,
		p: &Problem{Name: name}, seen: map[string]bool{}}
}

// start returns the decoder's offset past separators, so that an error
// points at the value itself.
func (r *jsonReader) start() int64 { return skipSeparators(r.data, r.dec.InputOffset(), " \t\r\n,:") }

func (r *jsonReader) fail(off int64, format string, args ...any) error {
	return &InputError{File: r.name, Line: r.lc.line(off), Msg: fmt.Sprintf(format, args...)}
}

// decodeErr explains a decoder error; what names the value being read.
func (r *jsonReader) decodeErr(err error, at int64, what string) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return r.fail(se.Offset, "%s", jsonSyntax(se))
	case errors.As(err, &te):
		field := what
		if te.Field != "" {
			field = what + ": " + te.Field
		}
		return r.fail(at, "%s: want %s, got %s", field, jsonWant(te.Type.String()), jsonGot(te.Value))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return r.fail(int64(len(r.data)), "unexpected end of JSON")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.TrimPrefix(err.Error(), "json: unknown field ")
		if s, uerr := strconv.Unquote(field); uerr == nil {
			field = Echo(s)
		}
		return r.fail(at, "%s: unknown field %s (valid: %s)", what, field, jsonBufferFields)
	}
	return r.fail(at, "%s: %v", what, err)
}

// delim reads the delimiter want.
func (r *jsonReader) delim(want json.Delim, what string) error {
	at := r.start()
	tok, err := r.dec.Token()
	if err != nil {
		return r.decodeErr(err, at, what)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return r.fail(at, "%s: want %q, got %s", what, string(want), jsonTok(tok))
	}
	return nil
}

// number reads an integer in [0, max] at offset at.
func (r *jsonReader) number(what string, at int64, max int64) (int64, error) {
	var n json.RawMessage
	if err := r.dec.Decode(&n); err != nil {
		return 0, r.decodeErr(err, at, what)
	}
	v, msg := jsonInt(what, n, max)
	if msg != "" {
		return 0, r.fail(at, "%s", msg)
	}
	return v, nil
}

// value decodes the next value into v, which only checks its type.
func (r *jsonReader) value(v any, at int64, what string) error {
	if err := r.dec.Decode(v); err != nil {
		return r.decodeErr(err, at, what)
	}
	return nil
}

// field reads one top-level field and its value.
func (r *jsonReader) field() error {
	at := r.start()
	tok, err := r.dec.Token()
	if err != nil {
		return r.decodeErr(err, at, "top level")
	}
	key, _ := tok.(string)
	if r.seen[key] {
		return r.fail(at, "field %s given twice", Echo(key))
	}
	r.seen[key] = true
	vat := r.start()
	switch key {
	case "name":
		var s string
		return r.value(&s, vat, "name")
	case "provenance":
		var m map[string]any
		return r.value(&m, vat, "provenance")
	case "alignment":
		r.p.Alignment, err = r.number("alignment", vat, 1<<63-1)
		return err
	case "capacity":
		r.p.Capacity, err = r.number("capacity", vat, 1<<63-1)
		return err
	case "buffers":
		return r.list("buffers", "buffer", r.addBuffer)
	case "persistent":
		return r.list("persistent", "persistent buffer", r.addPersistent)
	}
	return r.fail(at, "unknown field %s (valid: %s)", Echo(key), jsonTopFields)
}

// list reads the array of buffers of field key, handing each to add,
// which returns what is wrong with it ("" for nothing).
func (r *jsonReader) list(key, noun string, add func(jb *jsonBuffer, b Buffer, at int64) string) error {
	if err := r.delim('[', key); err != nil {
		return err
	}
	for i := 0; r.dec.More(); i++ {
		what := fmt.Sprintf("%s %d", noun, i)
		bat := r.start()
		var jb jsonBuffer
		if err := r.dec.Decode(&jb); err != nil {
			return r.decodeErr(err, bat, what)
		}
		b, msg := jb.buffer(i)
		if msg == "" {
			msg = add(&jb, b, bat)
		}
		if msg != "" {
			return r.fail(bat, "%s: %s", what, msg)
		}
	}
	return r.delim(']', key)
}

// addBuffer adds an element of "buffers", read at offset at.
func (r *jsonReader) addBuffer(jb *jsonBuffer, b Buffer, at int64) string {
	r.p.Buffers = append(r.p.Buffers, b)
	r.lines = append(r.lines, r.lc.line(at))
	if jb.Label != nil {
		r.hasLabels = true
		r.labels = append(r.labels, *jb.Label)
	} else {
		r.labels = append(r.labels, strconv.Itoa(b.ID))
	}
	return ""
}

// addPersistent adds an element of "persistent": the tensors kept
// outside the planned arena (Problem.Persistent), buffers too, without
// labels.
func (r *jsonReader) addPersistent(jb *jsonBuffer, b Buffer, _ int64) string {
	if jb.Label != nil {
		return "persistent buffers take no label"
	}
	r.p.Persistent = append(r.p.Persistent, b)
	return ""
}

// finish reads the end of the object and checks the problem as a whole.
func (r *jsonReader) finish() (*Problem, error) {
	if err := r.delim('}', "top level"); err != nil {
		return nil, err
	}
	if at := r.start(); at < int64(len(r.data)) {
		return nil, r.fail(at, "unexpected data after the JSON object")
	}
	if !r.seen["buffers"] {
		return nil, &InputError{File: r.name, Msg: `missing field "buffers"`}
	}
	p := r.p
	if r.hasLabels {
		p.Labels = r.labels
	}
	if i, j := duplicateID(p.Buffers); i >= 0 {
		return nil, &InputError{File: r.name, Line: r.lines[j], Msg: fmt.Sprintf("buffer %d: id %d repeats buffer %d on line %d", j, p.Buffers[j].ID, i, r.lines[i])}
	}
	return p, nil
}

// buffer checks and converts one JSON buffer; i is its index.
func (jb *jsonBuffer) buffer(i int) (Buffer, string) {
	b := Buffer{ID: i}
	for _, f := range []struct {
		name string
		v    json.RawMessage
	}{{"size", jb.Size}, {"first", jb.First}, {"last", jb.Last}} {
		if f.v == nil {
			return b, fmt.Sprintf("missing field %q", f.name)
		}
	}
	if jb.ID != nil {
		id, msg := jsonInt("id", jb.ID, 1<<63-1)
		if msg != "" {
			return b, msg
		}
		b.ID = int(id)
	}
	var msg string
	if b.Size, msg = jsonInt("size", jb.Size, 1<<63-1); msg != "" {
		return b, msg
	}
	first, msg := jsonInt("first", jb.First, MaxTask)
	if msg != "" {
		return b, msg
	}
	last, msg := jsonInt("last", jb.Last, MaxTask)
	if msg != "" {
		return b, msg
	}
	if msg := spanOrder("first", first, "last", last); msg != "" {
		return b, msg
	}
	b.First, b.Last = int(first), int(last)
	return b, ""
}

// jsonInt reads a JSON value that must be an integer in [0, max].
func jsonInt(col string, raw json.RawMessage, max int64) (int64, string) {
	if len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		return intField(col, raw, max)
	}
	got := "an object"
	switch {
	case len(raw) == 0:
		got = "nothing"
	case raw[0] == '"':
		var s string
		json.Unmarshal(raw, &s)
		got = "string " + Echo(s)
	case raw[0] == 't' || raw[0] == 'f':
		got = "bool"
	case raw[0] == 'n':
		got = "null"
	case raw[0] == '[':
		got = "an array"
	}
	return 0, fmt.Sprintf("%s: want an integer, got %s", col, got)
}

// duplicateID returns the indices of the first buffer whose ID repeats an
// earlier one and of that earlier one, or -1, -1. Ids in increasing order
// (the usual case) cost one pass; otherwise a sort finds the repeated values
// without hashing every id.
func duplicateID(bufs []Buffer) (first, second int) {
	increasing := true
	for i := 1; i < len(bufs) && increasing; i++ {
		increasing = bufs[i].ID > bufs[i-1].ID
	}
	if increasing {
		return -1, -1
	}
	lo, hi := bufs[0].ID, bufs[0].ID
	for _, b := range bufs {
		lo, hi = min(lo, b.ID), max(hi, b.ID)
	}
	if lo >= 0 && hi < 8*len(bufs)+1024 {
		at := make([]int32, hi+1) // index+1 of the id's first buffer
		for i, b := range bufs {
			if f := at[b.ID]; f > 0 {
				return int(f - 1), i
			}
			at[b.ID] = int32(i + 1)
		}
		return -1, -1
	}
	ids := make([]int, len(bufs))
	for i, b := range bufs {
		ids[i] = b.ID
	}
	slices.Sort(ids)
	seen := map[int]int{} // repeated id -> its first index, or -1
	for k := 1; k < len(ids); k++ {
		if ids[k] == ids[k-1] {
			seen[ids[k]] = -1
		}
	}
	if len(seen) == 0 {
		return -1, -1
	}
	for i, b := range bufs {
		if f, ok := seen[b.ID]; ok {
			if f >= 0 {
				return f, i
			}
			seen[b.ID] = i
		}
	}
	panic("unreachable")
}

// jsonWant names a Go type the way a JSON user thinks of it.
func jsonWant(goType string) string {
	switch goType {
	case "json.Number", "int64":
		return "a number"
	case "string", "*string":
		return "a string"
	}
	if strings.Contains(goType, "jsonBuffer") {
		return "an object"
	}
	return goType
}

func jsonTok(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		return strconv.Quote(string(v))
	case string:
		return "string " + Echo(v)
	case nil:
		return "null"
	}
	return fmt.Sprint(tok)
}

// WriteJSON writes p as membench JSON, one buffer per line. Labels are
// written when the problem has them; alignment, capacity and persistent
// buffers when set.
func WriteJSON(w io.Writer, p *Problem) error {
	bw := bufio.NewWriter(w)
	name, _ := json.Marshal(p.Name)
	fmt.Fprintf(bw, "{\n  \"name\": %s,\n", name)
	if p.Alignment != 0 {
		fmt.Fprintf(bw, "  \"alignment\": %d,\n", p.Alignment)
	}
	if p.Capacity != 0 {
		fmt.Fprintf(bw, "  \"capacity\": %d,\n", p.Capacity)
	}
	labels := len(p.Labels) == len(p.Buffers)
	writeJSONBuffers(bw, "buffers", p.Buffers, func(i int) []string {
		if labels {
			return p.Labels[i : i+1]
		}
		return nil
	})
	if len(p.Persistent) > 0 {
		bw.WriteString(",\n")
		writeJSONBuffers(bw, "persistent", p.Persistent, func(int) []string { return nil })
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// writeJSONBuffers writes field key: an array of bufs, one a line; label
// returns buffer i's label, or nothing.
func writeJSONBuffers(bw *bufio.Writer, key string, bufs []Buffer, label func(i int) []string) {
	bw.WriteString("  \"" + key + "\": [")
	var buf []byte
	for i, b := range bufs {
		buf = buf[:0]
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, "\n    {\"id\": "...)
		buf = strconv.AppendInt(buf, int64(b.ID), 10)
		for _, l := range label(i) {
			buf = append(buf, ", \"label\": "...)
			q, _ := json.Marshal(l)
			buf = append(buf, q...)
		}
		buf = append(buf, ", \"size\": "...)
		buf = strconv.AppendInt(buf, b.Size, 10)
		buf = append(buf, ", \"first\": "...)
		buf = strconv.AppendInt(buf, int64(b.First), 10)
		buf = append(buf, ", \"last\": "...)
		buf = strconv.AppendInt(buf, int64(b.Last), 10)
		buf = append(buf, '}')
		bw.Write(buf)
	}
	if len(bufs) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]")
}
