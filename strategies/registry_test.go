package strategies_test

import (
	"errors"
	"strings"
	"testing"

	"membench/strategies"
	"membench/workloads"
)

func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), want) {
			t.Errorf("panic = %v, want one containing %q", r, want)
		}
	}()
	f()
}

func TestRegisterPanics(t *testing.T) {
	naive := func() strategies.Strategy { s, _ := strategies.Lookup("naive"); return s }
	valid := func(name string) strategies.Info {
		return strategies.Info{Name: name, Runtime: "membench", Kind: strategies.Objects, Doc: "test only", New: strategies.Simple(naive)}
	}
	mustPanic(t, "Register called twice for naive", func() { strategies.Register(valid("naive")) })
	for _, bad := range []string{"", "Greedy", "greedy_by_size", "a b", "x/y"} {
		mustPanic(t, "invalid name", func() { strategies.Register(valid(bad)) })
	}
}

// TestRegisterValidates: like analysis.Validate for an analyzer, Register
// refuses an Info whose required fields are missing or invalid, with a
// panic that names the strategy and the field, and registers nothing.
func TestRegisterValidates(t *testing.T) {
	naive := func() strategies.Strategy { s, _ := strategies.Lookup("naive"); return s }
	for _, tc := range []struct {
		edit func(*strategies.Info)
		want string
	}{
		{func(in *strategies.Info) { in.New = nil }, `strategies: Register("test-bad"): missing New`},
		{func(in *strategies.Info) { in.Doc = "" }, `strategies: Register("test-bad"): missing Doc`},
		{func(in *strategies.Info) { in.Kind = "" }, `strategies: Register("test-bad"): missing Kind (want objects, offsets or external)`},
		{func(in *strategies.Info) { in.Kind = "arena" }, `strategies: Register("test-bad"): invalid Kind "arena" (want objects, offsets or external)`},
		{func(in *strategies.Info) { in.Runtime = "" }, `strategies: Register("test-bad"): missing Runtime (the runtime whose planner it follows, "membench" for membench's own)`},
		{func(in *strategies.Info) { in.Runtime = "TFLite GPU" }, `strategies: Register("test-bad"): invalid Runtime "TFLite GPU" (want ^[a-z0-9-]+$)`},
	} {
		in := strategies.Info{Name: "test-bad", Runtime: "membench", Kind: strategies.Offsets, Doc: "test only", New: strategies.Simple(naive)}
		tc.edit(&in)
		func() {
			defer func() {
				if r := recover(); r != tc.want {
					t.Errorf("panic = %v, want %q", r, tc.want)
				}
			}()
			strategies.Register(in)
		}()
		if _, err := strategies.Lookup("test-bad"); err == nil {
			t.Fatalf("test-bad registered despite %q", tc.want)
		}
	}
}

// TestRegisteredRuntimes: every planner states its runtime; TFLite's GPU
// delegate's eight keep their names under "tflite-gpu" (DESIGN §9).
func TestRegisteredRuntimes(t *testing.T) {
	gpu := []string{"equality", "greedy-best", "greedy-by-breadth", "greedy-by-size", "greedy-in-order", "min-cost-flow", "naive", "offset-greedy-by-size"}
	var got []string
	for _, g := range strategies.ByRuntime() {
		if g.Runtime == "tflite-gpu" {
			for _, in := range g.Infos {
				got = append(got, in.Name)
			}
		}
	}
	if strings.Join(got, " ") != strings.Join(gpu, " ") {
		t.Errorf("tflite-gpu planners %v, want %v", got, gpu)
	}
}

func TestLookup(t *testing.T) {
	s, err := strategies.Lookup("greedy-by-size")
	if err != nil || s.Name() != "greedy-by-size" {
		t.Fatalf("Lookup(greedy-by-size) = %v, %v", s, err)
	}
	for _, tc := range []struct{ spec, want string }{
		{"nope", `unknown strategy "nope" (valid: `},
		{"naive?x=1", `naive: unknown parameter "x" (it takes none)`},
		{"naive?x", `parameter "x" needs the form key=value`},
		{"", "empty name"},
		{"exec:", "want exec:PATH"},
	} {
		_, err := strategies.Lookup(tc.spec)
		var ue *workloads.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Lookup(%q) = %v, want a usage error containing %q", tc.spec, err, tc.want)
		}
	}
	_, err = strategies.Lookup("nope")
	for _, name := range []string{"naive", "greedy-by-size", "offset-greedy-by-size", "min-cost-flow", "exec:PATH"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("unknown-strategy error %q does not list %s", err, name)
		}
	}
}
