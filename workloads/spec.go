package workloads

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Spec is a parsed `NAME?key=value&...` specification, the form taken by
// workloads, strategies and allocators alike.
type Spec struct {
	// Raw is the spec exactly as given.
	Raw  string
	Name string
	// Params holds the parameters in the order given.
	Params []Param
}

// Param is one key=value pair of a spec.
type Param struct{ Key, Value string }

// ParamDoc documents one parameter a workload, strategy or allocator takes.
type ParamDoc struct {
	Name    string
	Default string
	Doc     string
}

// ParseSpec splits a spec into its name and parameters. A key given twice
// is an error.
func ParseSpec(s string) (Spec, error) {
	sp := Spec{Raw: s}
	name, query, hasQuery := strings.Cut(s, "?")
	sp.Name = name
	if name == "" {
		return sp, Usagef("empty name in spec %q", s)
	}
	if !hasQuery || query == "" {
		return sp, nil
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(query, "&") {
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return sp, Usagef("spec %q: parameter %q needs the form key=value", s, kv)
		}
		uk, err1 := url.QueryUnescape(k)
		uv, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil || uk == "" {
			return sp, Usagef("spec %q: bad parameter %q", s, kv)
		}
		if seen[uk] {
			return sp, Usagef("spec %q: parameter %q given twice", s, uk)
		}
		seen[uk] = true
		sp.Params = append(sp.Params, Param{uk, uv})
	}
	return sp, nil
}

// Args reads typed parameter values out of a spec and remembers which keys
// were read, so that Check can reject the rest. Parse errors are kept and
// reported by Check, so a factory can read all its parameters first.
type Args struct {
	spec Spec
	used map[string]bool
	err  error
}

// NewArgs returns an Args over the spec's parameters.
func NewArgs(sp Spec) *Args { return &Args{spec: sp, used: map[string]bool{}} }

func (a *Args) lookup(key string) (string, bool) {
	a.used[key] = true
	for _, p := range a.spec.Params {
		if p.Key == key {
			return p.Value, true
		}
	}
	return "", false
}

func (a *Args) fail(key, val, want string) {
	if a.err == nil {
		a.err = Usagef("%s: parameter %s=%s: want %s", a.spec.Name, key, Echo(val), want)
	}
}

// String returns the value of key, or def.
func (a *Args) String(key, def string) string {
	if v, ok := a.lookup(key); ok {
		return v
	}
	return def
}

// Int returns the integer value of key, or def.
func (a *Args) Int(key string, def int) int {
	v, ok := a.lookup(key)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		a.fail(key, v, "an integer")
		return def
	}
	return n
}

// Int64 returns the integer value of key, or def.
func (a *Args) Int64(key string, def int64) int64 {
	v, ok := a.lookup(key)
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		a.fail(key, v, "an integer")
		return def
	}
	return n
}

// Float returns the floating-point value of key, or def.
func (a *Args) Float(key string, def float64) float64 {
	v, ok := a.lookup(key)
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		a.fail(key, v, "a finite number")
		return def
	}
	return f
}

// Bool returns the boolean value of key (true/false/1/0), or def.
func (a *Args) Bool(key string, def bool) bool {
	v, ok := a.lookup(key)
	if !ok {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		a.fail(key, v, "true or false")
		return def
	}
	return b
}

// Bytes returns the byte-size value of key (K/M/G/T binary suffixes), or def.
func (a *Args) Bytes(key string, def int64) int64 {
	v, ok := a.lookup(key)
	if !ok {
		return def
	}
	n, err := ParseBytes(v)
	if err != nil {
		a.fail(key, v, "a byte size such as 4096, 64K, 1G")
		return def
	}
	return n
}

// Check returns the first parse error, or an error naming any parameter
// that was given but never read, listing the valid ones.
func (a *Args) Check(valid []ParamDoc) error {
	if a.err != nil {
		return a.err
	}
	for _, p := range a.spec.Params {
		if !a.used[p.Key] {
			names := make([]string, len(valid))
			for i, d := range valid {
				names[i] = d.Name
			}
			slices.Sort(names)
			if len(names) == 0 {
				return Usagef("%s: unknown parameter %s (it takes none)", a.spec.Name, Echo(p.Key))
			}
			return Usagef("%s: unknown parameter %s (valid: %s)", a.spec.Name, Echo(p.Key), strings.Join(names, ", "))
		}
	}
	return nil
}

// ParseBytes parses a byte size: a non-negative integer with an optional
// binary suffix K, M, G or T (KiB, MiB... and lower case accepted).
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "i")
	shift := 0
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K', 'k':
			shift = 10
		case 'M', 'm':
			shift = 20
		case 'G', 'g':
			shift = 30
		case 'T', 't':
			shift = 40
		}
		if shift > 0 {
			t = t[:n-1]
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad byte size %q", s)
	}
	if n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("byte size %q overflows int64", s)
	}
	return n << shift, nil
}
