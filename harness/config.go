// Package harness runs sweeps: it expands an experiment config into cells
// (workload, subject, repeat), runs them in worker processes with timeouts,
// appends each record as it ends, resumes killed sweeps, shards and merges.
package harness

import (
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

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
}

// Entry is one workload or subject of a config: a plain spec string, or a
// table {spec = "NAME", params = {key = value or [values]}, max_n = N}.
type Entry struct {
	Spec   string         `json:"spec"`
	Params map[string]any `json:"params,omitempty"`
	// MaxN, for subjects, skips workloads with more buffers (0: no limit).
	MaxN int `json:"max_n,omitempty"`
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
					return fmt.Errorf("spec: want a string, got %T", x)
				}
				e.Spec = s
			case "params":
				m, ok := x.(map[string]any)
				if !ok {
					return fmt.Errorf("params: want a table, got %T", x)
				}
				e.Params = m
			case "max_n":
				n, ok := x.(int64)
				if !ok || n < 0 {
					return fmt.Errorf("max_n: want a non-negative integer, got %v", x)
				}
				e.MaxN = int(n)
			default:
				return fmt.Errorf("unknown key %q (valid: spec, params, max_n)", k)
			}
		}
		if e.Spec == "" {
			return errors.New("an entry table needs spec")
		}
		return nil
	}
	return fmt.Errorf("want a spec string or a table, got %T", v)
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
	return fmt.Errorf("want a byte size such as 8G, got %T", v)
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
		return err
	}
	if v <= 0 {
		return fmt.Errorf("duration %q must be positive", b)
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

// ParseConfig parses TOML, rejecting unknown keys, and fills defaults.
func ParseConfig(file string, data []byte) (*Config, error) {
	var c Config
	md, err := toml.Decode(string(data), &c)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return nil, &workloads.InputError{File: file, Line: perr.Position.Line, Msg: perr.Message}
		}
		return nil, &workloads.InputError{File: file, Msg: err.Error()}
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, &workloads.InputError{File: file, Msg: fmt.Sprintf("unknown key %q (valid: name, seed, repeats, timeout, benchtime, samples, memory_limit, max_n, workloads, strategies, allocators)", und[0].String())}
	}
	if err := c.fill(); err != nil {
		return nil, &workloads.InputError{File: file, Msg: err.Error()}
	}
	return &c, nil
}

// fill sets defaults and checks ranges.
func (c *Config) fill() error {
	if c.Name == "" {
		c.Name = "sweep"
	}
	if strings.ContainsAny(c.Name, `/\`) || c.Name == "." || c.Name == ".." {
		return fmt.Errorf("name %q must be a plain folder name", c.Name)
	}
	if c.Repeats == 0 {
		c.Repeats = 3
	}
	if c.Repeats < 0 {
		return fmt.Errorf("repeats %d must be positive", c.Repeats)
	}
	if c.Timeout.Duration == 0 {
		c.Timeout.Duration = 60 * time.Second
	}
	if c.BenchTime.Duration == 0 {
		c.BenchTime.Duration = 20 * time.Millisecond
	}
	if c.Samples == 0 {
		c.Samples = 5
	}
	if c.Samples < 0 {
		return fmt.Errorf("samples %d must be positive", c.Samples)
	}
	if len(c.Workloads) == 0 {
		return errors.New("no workloads")
	}
	if len(c.Strategies)+len(c.Allocators) == 0 {
		return errors.New("no strategies or allocators")
	}
	return nil
}

// Expand turns entries into specs: list-valued params expand into their
// cross product, keys in sorted order, values in the order given.
func Expand(e Entry) ([]string, error) {
	if len(e.Params) == 0 {
		return []string{e.Spec}, nil
	}
	keys := make([]string, 0, len(e.Params))
	for k := range e.Params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	specs := []string{e.Spec}
	for _, k := range keys {
		vals, err := paramValues(k, e.Params[k])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Spec, err)
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
	return "", fmt.Errorf("param %s: want a string, number or bool, got %T", k, v)
}
