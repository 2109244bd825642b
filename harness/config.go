// Package harness runs sweeps: it expands an experiment config into cells
// (workload, subject, repeat), runs them in worker processes with timeouts,
// appends each record as it ends, resumes killed sweeps, shards and merges.
package harness

import (
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"membench/workloads"
)

// Config is an experiment: what to run and how often. It is read from
// TOML; see the examples in harness/testdata/configs and the README.
type Config struct {
	// Name names the output folder out/<name>.
	Name string `toml:"name" json:"name"`
	// Seed is given to every workload that takes a seed parameter and was
	// not given one.
	Seed int64 `toml:"seed" json:"seed"`
	// Repeats is the number of repeats of every (workload, subject) pair.
	Repeats int `toml:"repeats" json:"repeats"`
	// Timeout bounds one cell (default 60s).
	Timeout Duration `toml:"timeout" json:"timeout"`
	// BenchTime is the time each timing sample aims for, as testing.B's
	// -benchtime (default 20ms).
	BenchTime Duration `toml:"benchtime" json:"benchtime"`
	// Samples is the number of timing samples per cell (default 5), so that
	// comparisons have enough samples for a significance test.
	Samples int `toml:"samples" json:"samples"`
	// MemoryLimit bounds the heap of each worker process ("8G"); a cell
	// that outgrows it is recorded as oom. 0 means no limit.
	MemoryLimit ByteSize `toml:"memory_limit" json:"memory_limit,omitzero"`
	// MaxN maps a subject name (without parameters) to the largest
	// workload, in buffers, it runs on; larger ones are not run.
	MaxN map[string]int `toml:"max_n" json:"max_n,omitempty"`
	// Workloads, Strategies and Allocators list specs; a table entry may
	// give params as lists, which expand into their cross product. The
	// subject "*" stands for every registered strategy or allocator.
	Workloads  []Entry `toml:"workloads" json:"workloads"`
	Strategies []Entry `toml:"strategies" json:"strategies"`
	Allocators []Entry `toml:"allocators" json:"allocators"`

	// src is the text the config was parsed from, to name the file and
	// line of errors found later (nil for a config read from a manifest).
	src *configFile
	// specs is the config resolved by ParseConfig (see resolve).
	specs *resolved
}

// Entry is one workload or subject of a config: a plain spec string, or a
// table {spec = "NAME", params = {key = value or [values]}, max_n = N,
// only = "strategies"|"allocators"}.
type Entry struct {
	Spec   string         `json:"spec"`
	Params map[string]any `json:"params,omitempty"`
	// MaxN, for subjects, skips workloads with more buffers (0: no limit).
	MaxN int `json:"max_n,omitempty"`
	// Only, for workloads, runs them under one kind of subject: "strategies"
	// (a static graph) or "allocators" (a recorded trace); "" runs both.
	Only string `json:"only,omitempty"`
}

// UnmarshalTOML accepts a string or a table.
func (e *Entry) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case string:
		e.Spec = v
		return nil
	case map[string]any:
		for k, x := range v {
			switch k {
			case "spec":
				s, ok := x.(string)
				if !ok {
					return fmt.Errorf("spec: want a string, got %s", tomlType(x))
				}
				e.Spec = s
			case "params":
				m, ok := x.(map[string]any)
				if !ok {
					return fmt.Errorf("params: want a table, got %s", tomlType(x))
				}
				e.Params = m
			case "max_n":
				n, ok := x.(int64)
				if !ok {
					return fmt.Errorf("max_n: want a non-negative integer, got %s", tomlType(x))
				}
				if n < 0 || n > maxMaxN {
					return fmt.Errorf("max_n = %d: want a buffer count from 0 (no limit) to %d", n, maxMaxN)
				}
				e.MaxN = int(n)
			case "only":
				o, ok := x.(string)
				if !ok {
					return fmt.Errorf(`only: want "strategies" or "allocators", got %s`, tomlType(x))
				}
				if o != "strategies" && o != "allocators" {
					return fmt.Errorf(`only: want "strategies" or "allocators", got %s`, workloads.Echo(o))
				}
				e.Only = o
			default:
				return fmt.Errorf("unknown key %s (valid: spec, params, max_n, only)", workloads.Echo(k))
			}
		}
		if e.Spec == "" {
			return errors.New("an entry table needs spec")
		}
		return nil
	}
	return fmt.Errorf("want a spec string or a table, got %s", tomlType(v))
}

// ByteSize is a byte count written as 4096 or "8G" (K/M/G/T binary
// suffixes) in TOML.
type ByteSize struct{ Bytes int64 }

// UnmarshalTOML accepts an integer or a string with a suffix.
func (b *ByteSize) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case int64:
		if v < 0 {
			return fmt.Errorf("byte size %d must not be negative", v)
		}
		b.Bytes = v
		return nil
	case string:
		n, err := workloads.ParseBytes(v)
		b.Bytes = n
		return err
	}
	return fmt.Errorf("want a byte size such as 8G, got %s", tomlType(v))
}

// MarshalJSON writes the byte count.
func (b ByteSize) MarshalJSON() ([]byte, error) { return []byte(strconv.FormatInt(b.Bytes, 10)), nil }

// UnmarshalJSON reads a byte count.
func (b *ByteSize) UnmarshalJSON(data []byte) error {
	n, err := strconv.ParseInt(string(data), 10, 64)
	b.Bytes = n
	return err
}

// Duration is a time.Duration written as "60s" in TOML and JSON.
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("want a duration such as 90s or 5m, got %s", workloads.Echo(b))
	}
	if v <= 0 {
		return fmt.Errorf("duration %s must be positive", workloads.Echo(b))
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration as Go does.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

//go:embed default.toml
var defaultConfig []byte

// DefaultConfig returns the embedded default suite.
func DefaultConfig() (*Config, error) {
	return ParseConfig("default.toml (embedded)", defaultConfig)
}

// LoadConfig reads a TOML config file.
func LoadConfig(path string) (*Config, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return ParseConfig(path, data)
}

// The largest values a config may ask for, so that a slip of the keyboard
// (repeats = 10^12) is an error rather than a sweep that exhausts memory
// while it lists its cells, or never ends. A timeout also stays far from
// the overflow of a deadline (time.Now plus 292 years).
const (
	MaxRepeats   = 1000
	MaxSamples   = 1000
	MaxTimeout   = 7 * 24 * time.Hour
	MaxBenchTime = time.Minute
	// MaxExpand bounds the specs one entry's params expand into.
	MaxExpand = 10000
	// maxMaxN is the largest max_n: the largest synthetic workload.
	maxMaxN = 1 << 40
	// MaxConfigBytes, MaxConfigDepth and MaxConfigKeys bound a config's
	// text before the TOML decoder sees it: its time and memory grow
	// faster than the text with deep nesting (a 40 KB file of inline
	// tables 10,000 deep, or one key of 10,000 dotted parts, exhausts
	// memory) and with many keys. A config needs a few levels and keys.
	MaxConfigBytes = 2 << 20
	MaxConfigDepth = 16
	MaxConfigKeys  = 10000
)

// ParseConfig parses TOML, rejecting unknown keys, fills defaults and
// checks every value, and that every workload, strategy and allocator it
// names exists and takes the parameters given (a registered workload is
// built to check its parameter values, once: Expand keeps what it learnt;
// files are read later), in one pass (resolve). Errors are
// *workloads.InputError naming file and line.
func ParseConfig(file string, data []byte) (*Config, error) {
	text := strings.TrimPrefix(string(data), workloads.BOM)
	if err := checkShape(file, text); err != nil {
		return nil, err
	}
	// Syntax first, so that a decoding error below is known to be about
	// the value of its key.
	var raw map[string]any
	if _, err := toml.Decode(text, &raw); err != nil {
		return nil, tomlError(file, err, false)
	}
	var c Config
	md, err := toml.Decode(text, &c)
	if err != nil {
		return nil, tomlError(file, err, true)
	}
	cf := &configFile{name: file, text: text, lines: keyLines(text)}
	// The decoder skips a map field given a plain value; refuse it here.
	if ty := md.Type("max_n"); ty != "" && ty != "Hash" {
		return nil, cf.errorf("max_n", "max_n: want a table, got %s", tomlGoType(fmt.Sprintf("%T", raw["max_n"])))
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, cf.errorf(strings.Join(und[0], "."), "unknown key %s (valid: name, seed, repeats, timeout, benchtime, samples, memory_limit, max_n, workloads, strategies, allocators)", workloads.Echo(und[0].String()))
	}
	if err := c.fill(cf); err != nil {
		return nil, err
	}
	c.src = cf
	if c.specs, err = c.resolve(cf); err != nil {
		return nil, err
	}
	return &c, nil
}

// checkShape bounds the size of a config, the nesting of its tables,
// arrays and dotted keys, and the number of its keys (see MaxConfigBytes),
// reading just enough TOML to tell strings and comments from the rest.
// The error names the line where a bound is first passed.
func checkShape(file string, text string) error {
	if len(text) > MaxConfigBytes {
		return &workloads.InputError{File: file, Msg: fmt.Sprintf("%d bytes: a config may have at most %d", len(text), MaxConfigBytes)}
	}
	// frames are the open arrays and inline tables, the first frame the
	// document's top level; each counts the dots of the key being
	// written in it, as each part of a dotted key nests a table. The top
	// level starts from the dots of the last table header.
	frames := []int{0}
	header := 0
	line, keys := 1, 0
	lineStart := true
	numDot := false // the bare token at hand holds a float's dot
	for i := 0; i < len(text); i++ {
		c := text[i]
		if lineStart && len(frames) == 1 && c == '[' {
			// A table header, [a.b] or [[a.b]] (an array of tables: one
			// level more): the level of the keys below it.
			header = 0
			for i++; i < len(text) && text[i] != ']' && text[i] != '\n'; i++ {
				switch text[i] {
				case '[', '.':
					header++
				case '"', '\'':
					i, _ = skipString(text, i)
				}
			}
			for i+1 < len(text) && text[i+1] == ']' {
				i++
			}
			if i < len(text) && text[i] == '\n' {
				i-- // an unclosed header: the decoder says so
			}
			frames[0] = header
			lineStart = false
			if header+1 > MaxConfigDepth {
				return tooDeep(file, line)
			}
			continue
		}
		switch c {
		case ' ', '\t', '\r':
			continue
		case '\n':
			line++
			lineStart = true
			if len(frames) == 1 {
				frames[0] = header
			}
			continue
		case '#':
			for i+1 < len(text) && text[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			end, newlines := skipString(text, i)
			line += newlines
			i = end
		case '=':
			if keys++; keys > MaxConfigKeys {
				return &workloads.InputError{File: file, Line: line, Msg: fmt.Sprintf("more than %d keys: a config needs a few", MaxConfigKeys)}
			}
		case '[', '{':
			frames = append(frames, 0)
		case ']', '}':
			if len(frames) > 1 {
				frames = frames[:len(frames)-1]
			}
		case ',':
			frames[len(frames)-1] = 0
		case '.':
			// A float's one dot (1.5, 07:32:00.999) nests nothing.
			if !numDot && i > 0 && i+1 < len(text) && isDigit(text[i-1]) && isDigit(text[i+1]) {
				numDot = true
				break
			}
			frames[len(frames)-1]++
		}
		if !isBare(c) {
			numDot = false
		}
		lineStart = false
		d := len(frames)
		for _, dots := range frames {
			d += dots
		}
		if d > MaxConfigDepth {
			return tooDeep(file, line)
		}
	}
	return nil
}

func tooDeep(file string, line int) error {
	return &workloads.InputError{File: file, Line: line, Msg: fmt.Sprintf(
		"nested more than %d deep (tables, arrays and dotted keys): a config needs a few levels", MaxConfigDepth)}
}

// skipString returns the offset of the last quote of the TOML string that
// starts at text[i] (basic "..." or literal '...', each also tripled for
// multi-line strings), or of the string's end where it is cut short, and
// the newlines it spans.
func skipString(text string, i int) (end, newlines int) {
	q := text[i]
	delim := text[i : i+1]
	if strings.HasPrefix(text[i:], strings.Repeat(delim, 3)) {
		delim = strings.Repeat(delim, 3)
	}
	for j := i + len(delim); j < len(text); j++ {
		switch {
		case text[j] == '\\' && q == '"':
			j++
			if j < len(text) && text[j] == '\n' {
				newlines++
			}
		case text[j] == '\n':
			newlines++
			if len(delim) == 1 {
				return j - 1, newlines - 1 // cut short: the newline is the caller's
			}
		case strings.HasPrefix(text[j:], delim):
			// A multi-line string may end in up to two more quotes.
			end := j + len(delim) - 1
			for k := 0; k < 2 && len(delim) == 3 && end+1 < len(text) && text[end+1] == q; k++ {
				end++
			}
			return end, newlines
		}
	}
	return len(text) - 1, newlines
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isBare reports whether c may be part of a bare key or an unquoted value.
func isBare(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-' || c == '+' || c == ':' || c == '.'
}

// configFile is the text of a config, to name the line of a bad value.
type configFile struct {
	name, text string
	lines      map[string]int // key path ("max_n.naive") -> line
}

// errorf returns an input error on the line of key (no line if unknown).
func (f *configFile) errorf(key, format string, args ...any) error {
	return f.errorAt(f.lines[key], format, args...)
}

// errorAt returns an input error on line (none where 0); with no file, a
// usage error.
func (f *configFile) errorAt(line int, format string, args ...any) error {
	if f == nil {
		return workloads.Usagef(format, args...)
	}
	return &workloads.InputError{File: f.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// entryLines returns the line of each entry of the array under key: the
// line where its spec is written, searched for in order from the key's
// line on, or the key's line where the spec is not written verbatim.
func (f *configFile) entryLines(key string, entries []Entry) []int {
	out := make([]int, len(entries))
	if f == nil {
		return out
	}
	keyLine := f.lines[key]
	if keyLine == 0 {
		return out
	}
	// from is the offset of the key's line, then just past the last spec
	// found, which is on line.
	from, line := 0, 1
	for ; line < keyLine && from < len(f.text); line++ {
		i := strings.IndexByte(f.text[from:], '\n')
		if i < 0 {
			break
		}
		from += i + 1
	}
	for i, e := range entries {
		out[i] = keyLine
		for _, q := range []string{strconv.Quote(e.Spec), "'" + e.Spec + "'"} {
			if j := strings.Index(f.text[from:], q); j >= 0 {
				line += strings.Count(f.text[from:from+j], "\n")
				out[i] = line
				from += j + len(q)
				break
			}
		}
	}
	return out
}

// keyProbe is a type the decoder does not support, so that decoding a
// value into it fails with an error that tells the line of its key. (A
// value that refuses itself, an Unmarshaler, gets an error that copies the
// whole document: quadratic in the number of keys.)
type keyProbe chan struct{}

// keyProbeLine reads the line out of the decoder's error for a keyProbe.
var keyProbeLine = regexp.MustCompile(`^toml: line (\d+) `)

// keyLines returns the line of every key of the document, tables' keys
// included, joined with dots. The TOML decoder keeps key positions to
// itself but puts them in the errors it returns, so each key's value is
// decoded once more into a value that it cannot decode.
func keyLines(text string) map[string]int {
	lines := map[string]int{}
	var top map[string]toml.Primitive
	md, err := toml.Decode(text, &top)
	if err != nil {
		return lines
	}
	var walk func(prefix string, prims map[string]toml.Primitive)
	walk = func(prefix string, prims map[string]toml.Primitive) {
		for k, p := range prims {
			var probe keyProbe
			if err := md.PrimitiveDecode(p, &probe); err != nil {
				if m := keyProbeLine.FindStringSubmatch(err.Error()); m != nil {
					lines[prefix+k], _ = strconv.Atoi(m[1])
				}
			}
			var sub map[string]toml.Primitive
			if md.PrimitiveDecode(p, &sub) == nil {
				walk(prefix+k+".", sub)
			}
		}
	}
	walk("", top)
	return lines
}

// tomlDecodeError matches the decoder's type errors, which come as text.
var tomlDecodeError = regexp.MustCompile(`^toml: (?:line (\d+) )?\(last key "(.*)"\): (.*)$`)

// tomlError explains a decoding error with the file and line. Errors
// about a value (typed) are prefixed with their key.
func tomlError(file string, err error, typed bool) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg := pe.Message
		if typed && pe.LastKey != "" {
			msg = pe.LastKey + ": " + msg
		}
		return &workloads.InputError{File: file, Line: pe.Position.Line, Msg: msg}
	}
	m := tomlDecodeError.FindStringSubmatch(err.Error())
	if m == nil {
		return &workloads.InputError{File: file, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
	}
	line, _ := strconv.Atoi(m[1])
	msg := m[3]
	if t := tomlTypeError.FindStringSubmatch(msg); t != nil {
		msg = fmt.Sprintf("want %s, got %s", tomlWant(t[2]), tomlGoType(t[1]))
	} else if t := tomlTableError.FindStringSubmatch(msg); t != nil {
		msg = "want a table, got " + tomlGoType(t[1])
	}
	return &workloads.InputError{File: file, Line: line, Msg: m[2] + ": " + msg}
}

var (
	tomlTypeError  = regexp.MustCompile(`^incompatible types: TOML value has type (.*); destination has type (.*)$`)
	tomlTableError = regexp.MustCompile(`^type mismatch for .*: expected table but found (.*)$`)
)

// tomlWant names a decoder destination type in TOML's words.
func tomlWant(dst string) string {
	switch dst {
	case "integer":
		return "an integer"
	case "float":
		return "a number"
	case "boolean":
		return "true or false"
	case "map":
		return "a table"
	case "slice":
		return "an array"
	}
	return "a string"
}

// tomlGoType names the Go type of a decoded TOML value in TOML's words.
func tomlGoType(goType string) string {
	switch goType {
	case "int64":
		return "an integer"
	case "float64":
		return "a float"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "map[string]any", "map[string]interface {}":
		return "a table"
	case "[]any", "[]interface {}", "[]map[string]any", "[]map[string]interface {}":
		return "an array"
	}
	return "a date or time"
}

// tomlType names the type of a decoded TOML value.
func tomlType(v any) string { return tomlGoType(fmt.Sprintf("%T", v)) }

// fill sets defaults and checks ranges.
func (c *Config) fill(f *configFile) error {
	if c.Name == "" {
		c.Name = "sweep"
	}
	if why, ok := checkName(c.Name); !ok {
		return f.errorf("name", "name %s must be a plain folder name%s", workloads.Echo(c.Name), why)
	}
	if c.Repeats == 0 {
		c.Repeats = 3
	}
	if c.Repeats < 0 || c.Repeats > MaxRepeats {
		return f.errorf("repeats", "repeats = %d: want 1 to %d", c.Repeats, MaxRepeats)
	}
	if c.Timeout.Duration == 0 {
		c.Timeout.Duration = 60 * time.Second
	}
	if c.Timeout.Duration > MaxTimeout {
		return f.errorf("timeout", "timeout = %q: want at most %s (a week)", c.Timeout.Duration, MaxTimeout)
	}
	if c.BenchTime.Duration == 0 {
		c.BenchTime.Duration = 20 * time.Millisecond
	}
	if c.BenchTime.Duration > MaxBenchTime {
		return f.errorf("benchtime", "benchtime = %q: want at most %s", c.BenchTime.Duration, MaxBenchTime)
	}
	if c.Samples == 0 {
		c.Samples = 5
	}
	if c.Samples < 0 || c.Samples > MaxSamples {
		return f.errorf("samples", "samples = %d: want 1 to %d", c.Samples, MaxSamples)
	}
	for _, name := range slices.Sorted(maps.Keys(c.MaxN)) {
		if n := c.MaxN[name]; n < 0 || n > maxMaxN {
			return f.errorf("max_n."+name, "max_n %s = %d: want a buffer count from 0 (no limit) to %d", workloads.Echo(name), n, maxMaxN)
		}
	}
	if len(c.Workloads) == 0 {
		return f.errorf("workloads", "no workloads")
	}
	if len(c.Strategies)+len(c.Allocators) == 0 {
		return f.errorf("strategies", "no strategies or allocators")
	}
	return nil
}

// MaxNameBytes bounds a config's name, which names its output folder:
// file systems refuse names over 255 bytes, and a merge stages the folder
// under a longer name.
const MaxNameBytes = 200

// checkName reports whether name is a plain folder name, and if not, why
// (worded to follow "must be a plain folder name").
func checkName(name string) (why string, ok bool) {
	switch {
	case strings.ContainsAny(name, `/\`) || name == "." || name == "..":
		return "", false
	case len(name) > MaxNameBytes:
		return fmt.Sprintf(" of at most %d bytes", MaxNameBytes), false
	case !utf8.ValidString(name):
		return " in UTF-8", false
	case strings.ContainsFunc(name, unicode.IsControl):
		return ", without control characters", false
	}
	return "", true
}

// specError words the error of resolving spec for a config line: the
// error's own text where it names the spec already, else `KIND "SPEC":
// what is wrong` without the registry's name prefix.
func specError(kind, spec string, err error) string {
	msg := err.Error()
	var ie *workloads.InputError
	if strings.HasPrefix(msg, "unknown ") || strings.Contains(msg, strconv.Quote(spec)) || errors.As(err, &ie) {
		return msg
	}
	name, _, _ := strings.Cut(spec, "?")
	return fmt.Sprintf("%s %s: %s", kind, workloads.Echo(spec), strings.TrimPrefix(msg, name+": "))
}

// Expand turns entries into specs: list-valued params expand into their
// cross product, keys in sorted order, values in the order given. The
// product may hold at most MaxExpand specs.
func Expand(e Entry) ([]string, error) {
	if len(e.Params) == 0 {
		return []string{e.Spec}, nil
	}
	keys := slices.Sorted(maps.Keys(e.Params))
	n := 1
	for _, k := range keys {
		if list, ok := e.Params[k].([]any); ok {
			n *= max(len(list), 1)
		}
		if n > MaxExpand {
			return nil, fmt.Errorf("%s: params expand to more than %d specs", workloads.Echo(e.Spec), MaxExpand)
		}
	}
	specs := []string{e.Spec}
	for _, k := range keys {
		vals, err := paramValues(k, e.Params[k])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", workloads.Echo(e.Spec), err)
		}
		var next []string
		for _, s := range specs {
			for _, v := range vals {
				sep := "&"
				if !strings.Contains(s, "?") {
					sep = "?"
				}
				next = append(next, s+sep+k+"="+v)
			}
		}
		specs = next
	}
	return specs, nil
}

func paramValues(k string, v any) ([]string, error) {
	if list, ok := v.([]any); ok {
		if len(list) == 0 {
			return nil, fmt.Errorf("param %s: empty list", k)
		}
		out := make([]string, len(list))
		for i, x := range list {
			s, err := scalar(k, x)
			if err != nil {
				return nil, err
			}
			out[i] = s
		}
		return out, nil
	}
	s, err := scalar(k, v)
	return []string{s}, err
}

func scalar(k string, v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), nil
	case bool:
		return strconv.FormatBool(v), nil
	}
	return "", fmt.Errorf("param %s: want a string, number or bool, got %s", k, tomlType(v))
}
