package workloads

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// InputError is malformed input: it names the file, the line (1-based; 0
// when the error is not tied to a line) and what was expected. Commands
// exit with status 2 on it.
type InputError struct {
	File string
	Line int
	Msg  string
}

func (e *InputError) Error() string {
	switch {
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	case e.File != "":
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return e.Msg
}

// UsageError is a bad name, spec or parameter given by the user. Commands
// exit with status 2 on it.
type UsageError struct {
	Msg string
	// Err, where set, is what errors.Is and errors.As see beneath: a
	// workload that is neither a file nor a registered name wraps
	// fs.ErrNotExist, so a caller can tell it from one that is malformed.
	Err error
}

func (e *UsageError) Error() string { return e.Msg }

// Unwrap returns Err.
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// MaxEcho is the most characters of a bad value that an error message
// repeats: a 100 MB line must not come back whole.
const MaxEcho = 80

// Echo quotes a bad value for an error message. A value longer than
// MaxEcho characters is cut with "…" and its length in bytes follows, as
// in `"xxxx…" (104857600 bytes)`. Every reader echoes through it (or
// Clip), so users see one wording.
func Echo[T ~string | ~[]byte](v T) string {
	s, cut := clip(string(v))
	if !cut {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s (%d bytes)", strconv.Quote(s+"…"), len(v))
}

// Clip is Echo without the quotes, for values printed bare (numbers).
func Clip[T ~string | ~[]byte](v T) string {
	s, cut := clip(string(v))
	if !cut {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes)", s, len(v))
}

// clip returns the first MaxEcho characters of s and whether it cut.
func clip(s string) (string, bool) {
	if len(s) <= MaxEcho {
		return s, false
	}
	n := 0
	for i := range s {
		if n == MaxEcho {
			return s[:i], true
		}
		n++
	}
	return s, false
}

// BOM is the UTF-8 byte-order mark that some editors put first in a text
// file; every reader skips it.
const BOM = "\xef\xbb\xbf"

// LineAt returns the 1-based line of byte offset off in data.
func LineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}

// JSONError explains an error of encoding/json decoding data in the
// user's words, naming the file and the line: a syntax error, a value of
// the wrong type (`field "size": want an integer, got a string`) or an
// early end. Other errors keep their text.
func JSONError(name string, data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return &InputError{File: name, Line: LineAt(data, se.Offset), Msg: jsonSyntax(se)}
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "the top level"
		} else {
			field = "field " + strconv.Quote(field)
		}
		return &InputError{File: name, Line: LineAt(data, te.Offset), Msg: fmt.Sprintf("%s: want %s, got %s", field, jsonKind(te.Type), jsonGot(te.Value))}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &InputError{File: name, Line: LineAt(data, int64(len(data))), Msg: "unexpected end of JSON"}
	}
	return &InputError{File: name, Msg: strings.TrimPrefix(err.Error(), "json: ")}
}

// maxJSONDepth is how deep encoding/json lets arrays and objects nest
// (its scanner's limit); goccy/go-json stops there too, and the Chrome
// trace reader then decodes again with encoding/json.
const maxJSONDepth = 10000

// jsonSyntax words a JSON syntax error.
func jsonSyntax(se *json.SyntaxError) string {
	if strings.HasSuffix(se.Error(), "exceeded max depth") {
		return fmt.Sprintf("invalid JSON: arrays and objects nest deeper than %d levels", maxJSONDepth)
	}
	return "invalid JSON: " + strings.TrimPrefix(se.Error(), "json: ")
}

// jsonKind names the JSON value that decodes into Go type t.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return jsonKind(t.Elem())
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		if e := jsonKind(t.Elem()); e == "an integer" {
			return "an array of integers"
		}
		return "an array"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	}
	return "another value"
}

// jsonGot names the kind of JSON value that encoding/json reports in
// UnmarshalTypeError.Value.
func jsonGot(v string) string {
	switch {
	case v == "string":
		return "a string"
	case v == "number":
		return "a number"
	case strings.HasPrefix(v, "number "):
		return "the number " + Clip(strings.TrimPrefix(v, "number "))
	case v == "object":
		return "an object"
	case v == "array":
		return "an array"
	case v == "bool":
		return "true or false"
	}
	return v
}

// lineCounter maps byte offsets to 1-based lines, counting forward from the
// last offset asked for so that increasing offsets cost linear time.
type lineCounter struct {
	data     []byte
	lastOff  int64
	lastLine int
}

func (c *lineCounter) line(off int64) int {
	off = min(max(off, 0), int64(len(c.data)))
	if c.lastLine == 0 || off < c.lastOff {
		c.lastOff, c.lastLine = 0, 1
	}
	c.lastLine += bytes.Count(c.data[c.lastOff:off], []byte{'\n'})
	c.lastOff = off
	return c.lastLine
}
