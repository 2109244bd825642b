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
	// The problem forms (DESIGN §15).
	Align  json.RawMessage `json:"align"`
	Offset json.RawMessage `json:"offset"`
	Hint   json.RawMessage `json:"hint"`
	Memory *string         `json:"memory"`
	Gaps   json.RawMessage `json:"gaps"`
}

// jsonGap is one element of a buffer's "gaps".
type jsonGap struct {
	First  json.RawMessage   `json:"first"`
	Last   json.RawMessage   `json:"last"`
	Window []json.RawMessage `json:"window"`
}

// jsonMemory is one element of "memories".
type jsonMemory struct {
	Name     *string         `json:"name"`
	Capacity json.RawMessage `json:"capacity"`
}

const jsonTopFields = "name, provenance, alignment, capacity, memories, buffers, persistent"
const jsonBufferFields = "id, label, size, first, last, align, gaps, offset, hint, memory"

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
	memories  int       // the line of "memories"
	memNames  []*string // each buffer's memory's name (nil: the first), once one names one
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
		valid := jsonBufferFields
		if what == "memories" {
			valid = "name, capacity"
		}
		return r.fail(at, "%s: unknown field %s (valid: %s)", what, field, valid)
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
	case "memories":
		r.memories = r.lc.line(vat)
		return r.readMemories(vat)
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

// readMemories reads "memories": [{"name": ..., "capacity": ...}, ...].
func (r *jsonReader) readMemories(at int64) error {
	var ms []jsonMemory
	if err := r.value(&ms, at, "memories"); err != nil {
		return err
	}
	r.p.Memories = make([]Memory, len(ms))
	for m, jm := range ms {
		if jm.Name == nil {
			return r.fail(at, "memories: memory %d: missing field \"name\"", m)
		}
		r.p.Memories[m].Name = *jm.Name
		if jm.Capacity != nil {
			c, msg := jsonInt("capacity", jm.Capacity, 1<<63-1)
			if msg != "" {
				return r.fail(at, "memories: memory %d: %s", m, msg)
			}
			r.p.Memories[m].Capacity = c
		}
	}
	if msg := checkMemories(r.p.Memories); msg != "" {
		return r.fail(at, "memories: %s", msg)
	}
	return nil
}

// addBuffer adds an element of "buffers", read at offset at.
func (r *jsonReader) addBuffer(jb *jsonBuffer, b Buffer, at int64) string {
	i := len(r.p.Buffers)
	if msg := r.forms(jb, i); msg != "" {
		return msg
	}
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
	if jb.Align != nil || jb.Gaps != nil || jb.Offset != nil || jb.Hint != nil || jb.Memory != nil {
		return "persistent buffers take no align, gaps, offset, hint or memory"
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
	if err := r.spaces(); err != nil {
		return nil, err
	}
	if p.Aligns != nil || p.Gaps != nil || p.Fixed != nil || p.Hints != nil || p.Spaces != nil || p.Memories != nil {
		for i := range p.Buffers {
			if msg := checkBufferForms(p, i); msg != "" {
				return nil, &InputError{File: r.name, Line: r.lines[i], Msg: fmt.Sprintf("buffer %d: %s", i, msg)}
			}
		}
	}
	if i, j := duplicateID(p.Buffers); i >= 0 {
		return nil, &InputError{File: r.name, Line: r.lines[j], Msg: fmt.Sprintf("buffer %d: id %d repeats buffer %d on line %d", j, p.Buffers[j].ID, i, r.lines[i])}
	}
	return p, nil
}

// forms reads the forms of buffer b, the i-th, into the problem.
func (r *jsonReader) forms(jb *jsonBuffer, i int) string {
	p := r.p
	if jb.Align != nil {
		a, msg := jsonInt("align", jb.Align, 1<<63-1)
		if msg == "" && a == 0 {
			msg = "align: want a positive integer, got 0"
		}
		if msg != "" {
			return msg
		}
		p.Aligns = appendForm(p.Aligns, i, 0, a, 0)
	} else if p.Aligns != nil {
		p.Aligns = append(p.Aligns, 0)
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		s    *[]int64
	}{{"offset", jb.Offset, &p.Fixed}, {"hint", jb.Hint, &p.Hints}} {
		v := NoOffset
		if f.raw != nil && string(f.raw) != "-1" {
			var msg string
			if v, msg = jsonInt(f.name, f.raw, 1<<63-1); msg != "" {
				return msg + " (or -1 for none)"
			}
		}
		*f.s = appendForm(*f.s, i, 0, v, NoOffset)
	}
	if jb.Memory != nil && r.memNames == nil {
		r.memNames = make([]*string, i)
	}
	if r.memNames != nil {
		r.memNames = append(r.memNames, jb.Memory)
	}
	if jb.Gaps == nil {
		if p.Gaps != nil {
			p.Gaps = append(p.Gaps, nil)
		}
		return ""
	}
	gaps, msg := jsonGaps(jb.Gaps)
	if msg != "" {
		return msg
	}
	if len(gaps) > 0 && p.Gaps == nil {
		p.Gaps = make([][]Gap, i)
	}
	if p.Gaps != nil {
		p.Gaps = append(p.Gaps, gaps)
	}
	return ""
}

// jsonGaps reads a buffer's "gaps": [{"first": F, "last": L, "window":
// [LO, HI]}, ...].
func jsonGaps(raw json.RawMessage) ([]Gap, string) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var jg []jsonGap
	if err := dec.Decode(&jg); err != nil {
		return nil, `gaps: want an array of {"first": TASK, "last": TASK, "window": [LO, HI]} (window optional)`
	}
	var gaps []Gap
	for k, g := range jg {
		if g.First == nil || g.Last == nil {
			return nil, fmt.Sprintf("gap %d: want fields first and last", k)
		}
		first, msg := jsonInt("first", g.First, MaxTask)
		if msg != "" {
			return nil, fmt.Sprintf("gap %d: %s", k, msg)
		}
		last, msg := jsonInt("last", g.Last, MaxTask)
		if msg != "" {
			return nil, fmt.Sprintf("gap %d: %s", k, msg)
		}
		gap := Gap{First: int(first), Last: int(last)}
		if g.Window != nil {
			if len(g.Window) != 2 {
				return nil, fmt.Sprintf("gap %d: window: want [LO, HI], got %d numbers", k, len(g.Window))
			}
			lo, msg := jsonInt("window", g.Window[0], 1<<63-1)
			if msg != "" {
				return nil, fmt.Sprintf("gap %d: %s", k, msg)
			}
			hi, msg := jsonInt("window", g.Window[1], 1<<63-1)
			if msg != "" {
				return nil, fmt.Sprintf("gap %d: %s", k, msg)
			}
			gap.Window = &Window{Lo: lo, Hi: hi}
		}
		gaps = append(gaps, gap)
	}
	return gaps, ""
}

// spaces turns the buffers' memory names into Problem.Spaces.
func (r *jsonReader) spaces() error {
	if r.memNames == nil {
		return nil
	}
	p := r.p
	index := make(map[string]int, len(p.Memories))
	for m, mem := range p.Memories {
		index[mem.Name] = m
	}
	p.Spaces = make([]int, len(p.Buffers))
	for i, name := range r.memNames {
		if name == nil {
			continue // the first memory
		}
		m, ok := index[*name]
		if !ok {
			return &InputError{File: r.name, Line: r.lines[i],
				Msg: fmt.Sprintf("buffer %d: memory %s is not in \"memories\" (%d listed)", i, Echo(*name), len(p.Memories))}
		}
		p.Spaces[i] = m
	}
	return nil
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
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	case strings.Contains(goType, "jsonBuffer"), strings.Contains(goType, "jsonMemory"), strings.HasPrefix(goType, "map["):
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
	if p.Memories != nil {
		bw.WriteString("  \"memories\": [")
		for m, mem := range p.Memories {
			if m > 0 {
				bw.WriteString(", ")
			}
			q, _ := json.Marshal(mem.Name)
			fmt.Fprintf(bw, "{\"name\": %s", q)
			if mem.Capacity != 0 {
				fmt.Fprintf(bw, ", \"capacity\": %d", mem.Capacity)
			}
			bw.WriteString("}")
		}
		bw.WriteString("],\n")
	}
	labels := len(p.Labels) == len(p.Buffers)
	writeJSONBuffers(bw, "buffers", p.Buffers, func(i int) []string {
		if labels {
			return p.Labels[i : i+1]
		}
		return nil
	}, p)
	if len(p.Persistent) > 0 {
		bw.WriteString(",\n")
		writeJSONBuffers(bw, "persistent", p.Persistent, func(int) []string { return nil }, nil)
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// writeJSONBuffers writes field key: an array of bufs, one a line; label
// returns buffer i's label, or nothing. forms, when not nil, is the
// problem whose forms the buffers carry.
func writeJSONBuffers(bw *bufio.Writer, key string, bufs []Buffer, label func(i int) []string, forms *Problem) {
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
		if forms != nil {
			buf = appendJSONForms(buf, forms, i)
		}
		buf = append(buf, '}')
		bw.Write(buf)
	}
	if len(bufs) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]")
}

// appendJSONForms appends buffer i's forms, as fields of its JSON object.
func appendJSONForms(buf []byte, p *Problem, i int) []byte {
	if p.Aligns != nil && p.Aligns[i] > 0 {
		buf = append(buf, ", \"align\": "...)
		buf = strconv.AppendInt(buf, p.Aligns[i], 10)
	}
	if o, ok := p.FixedOf(i); ok {
		buf = append(buf, ", \"offset\": "...)
		buf = strconv.AppendInt(buf, o, 10)
	}
	if h, ok := p.HintOf(i); ok {
		buf = append(buf, ", \"hint\": "...)
		buf = strconv.AppendInt(buf, h, 10)
	}
	if p.Spaces != nil {
		buf = append(buf, ", \"memory\": "...)
		q, _ := json.Marshal(p.Memories[p.Spaces[i]].Name)
		buf = append(buf, q...)
	}
	if gaps := p.GapsOf(i); len(gaps) > 0 {
		buf = append(buf, ", \"gaps\": ["...)
		for k, g := range gaps {
			if k > 0 {
				buf = append(buf, ", "...)
			}
			buf = append(buf, "{\"first\": "...)
			buf = strconv.AppendInt(buf, int64(g.First), 10)
			buf = append(buf, ", \"last\": "...)
			buf = strconv.AppendInt(buf, int64(g.Last), 10)
			if g.Window != nil {
				buf = append(buf, ", \"window\": ["...)
				buf = strconv.AppendInt(buf, g.Window.Lo, 10)
				buf = append(buf, ", "...)
				buf = strconv.AppendInt(buf, g.Window.Hi, 10)
				buf = append(buf, ']')
			}
			buf = append(buf, '}')
		}
		buf = append(buf, ']')
	}
	return buf
}
