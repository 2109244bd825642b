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
	mustPanic(t, "Register called twice for naive", func() {
		strategies.Register(strategies.Info{Name: "naive", Kind: strategies.Objects, New: strategies.Simple(naive)})
	})
	for _, bad := range []string{"", "Greedy", "greedy_by_size", "a b", "x/y"} {
		mustPanic(t, "invalid name", func() {
			strategies.Register(strategies.Info{Name: bad, New: strategies.Simple(naive)})
		})
	}
	mustPanic(t, "without New", func() { strategies.Register(strategies.Info{Name: "no-new"}) })
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
