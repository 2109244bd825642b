package search

import (
	"time"

	"membench/workloads"
)

// DefaultSeed is OmniMalloc's DEFAULT_SEED (common/constants.py).
const DefaultSeed = 42

// DefaultTimeout is OmniMalloc's DEFAULT_TIMEOUT (common/constants.py):
// the wall-time budget of every time-bounded planner.
const DefaultTimeout = "3s"

// SeedDoc and TimeoutDoc document the seed and timeout parameters.
var (
	SeedDoc    = workloads.ParamDoc{Name: "seed", Default: "42", Doc: "random seed (OmniMalloc's DEFAULT_SEED); the same seed gives the same plan while the iteration budget binds"}
	TimeoutDoc = workloads.ParamDoc{Name: "timeout", Default: DefaultTimeout, Doc: "wall-time budget (OmniMalloc's DEFAULT_TIMEOUT), 0 for none"}
)

// Params reads a planner's parameters, keeping the first bad one's error
// for Err, so that a constructor reads them all and checks once.
type Params struct {
	name string
	args *workloads.Args
	err  error
}

// NewParams reads the parameters of the planner name from args.
func NewParams(name string, args *workloads.Args) *Params { return &Params{name: name, args: args} }

// Err returns the first bad parameter's error, nil if none was bad.
func (p *Params) Err() error { return p.err }

func (p *Params) fail(format string, a ...any) {
	if p.err == nil {
		p.err = workloads.Usagef("%s: parameter "+format, append([]any{p.name}, a...)...)
	}
}

// Seed reads the seed parameter (DefaultSeed when absent).
func (p *Params) Seed() uint64 {
	s := p.args.Int64("seed", DefaultSeed)
	if s < 0 {
		p.fail("seed=%d: want a non-negative integer", s)
	}
	return uint64(s)
}

// Timeout reads the timeout parameter (def when absent); 0 is none.
func (p *Params) Timeout(def string) time.Duration {
	s := p.args.String("timeout", def)
	d, err := time.ParseDuration(s)
	if s == "0" {
		d, err = 0, nil
	}
	if err != nil || d < 0 {
		p.fail("timeout=%s: want a duration such as 3s or 500ms, 0 for none", workloads.Echo(s))
	}
	return d
}

// Int reads an integer parameter that must be at least least.
func (p *Params) Int(key string, def, least int) int {
	v := p.args.Int(key, def)
	if v < least {
		p.fail("%s=%d: want an integer of at least %d", key, v, least)
	}
	return v
}

// Float reads a number parameter that must lie in [lo, hi], or in
// (lo, hi] where open.
func (p *Params) Float(key string, def, lo, hi float64, open bool) float64 {
	v := p.args.Float(key, def)
	if v > hi || v < lo || open && v == lo {
		p.fail("%s=%v: want a number in %s%v, %v]", key, v, map[bool]string{true: "(", false: "["}[open], lo, hi)
	}
	return v
}

// Deadline is OmniMalloc's make_deadline: a wall-clock budget that starts
// when it is made; the zero budget never expires.
type Deadline struct{ at time.Time }

// NewDeadline starts a budget of d (0: none).
func NewDeadline(d time.Duration) Deadline {
	if d <= 0 {
		return Deadline{}
	}
	return Deadline{time.Now().Add(d)}
}

// Expired reports whether the budget has run out.
func (d Deadline) Expired() bool { return !d.at.IsZero() && !time.Now().Before(d.at) }
