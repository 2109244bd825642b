package workloads

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	sp, err := ParseSpec("synthetic/random-dag?n=1000&seed=3&name=a%2Fb")
	if err != nil {
		t.Fatal(err)
	}
	want := []Param{{"n", "1000"}, {"seed", "3"}, {"name", "a/b"}}
	if sp.Name != "synthetic/random-dag" || len(sp.Params) != 3 {
		t.Fatalf("ParseSpec = %+v", sp)
	}
	for i, p := range want {
		if sp.Params[i] != p {
			t.Errorf("param %d = %+v, want %+v", i, sp.Params[i], p)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"", "empty name"},
		{"?n=1", "empty name"},
		{"x?n", `"n" needs the form key=value`},
		{"x?n=1&n=2", `parameter "n" given twice`},
		{"x?=1", "bad parameter"},
		{"x?n=%zz", "bad parameter"},
	} {
		_, err := ParseSpec(tc.in)
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseSpec(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestArgs(t *testing.T) {
	sp, _ := ParseSpec("w?n=12&f=0.5&b=true&size=64K&s=hi&big=2T")
	a := NewArgs(sp)
	if a.Int("n", 1) != 12 || a.Float("f", 0) != 0.5 || !a.Bool("b", false) || a.Bytes("size", 0) != 64<<10 ||
		a.String("s", "") != "hi" || a.Int("missing", 7) != 7 {
		t.Error("typed getters returned wrong values")
	}
	if got := a.Bytes("big", 0); got != 2<<40 {
		t.Errorf("Bytes(2T) = %d", got)
	}
	if err := a.Check(nil); err != nil {
		t.Errorf("Check after reading every key: %v", err)
	}
	sp, _ = ParseSpec("w?n=x&k=1")
	a = NewArgs(sp)
	a.Int("n", 0)
	if err := a.Check([]ParamDoc{{Name: "n"}}); err == nil || !strings.Contains(err.Error(), `w: parameter n="x": want an integer`) {
		t.Errorf("bad integer: %v", err)
	}
	a = NewArgs(sp)
	a.String("n", "")
	if err := a.Check([]ParamDoc{{Name: "n"}, {Name: "m"}}); err == nil || err.Error() != `w: unknown parameter "k" (valid: m, n)` {
		t.Errorf("unknown key: %v", err)
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "4096": 4096, "1K": 1024, "1k": 1024, "2M": 2 << 20, "1G": 1 << 30,
		"1GiB": 1 << 30, "3T": 3 << 40, "16MB": 16 << 20} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "1X", "G", "1.5G", "9999999999T"} {
		if _, err := ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q): want an error", in)
		}
	}
}

func TestTable(t *testing.T) {
	tab := NewTable[int]("things", validName())
	tab.Add("b", 2)
	tab.Add("a", 1)
	if got := tab.Names(); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("Names = %v", got)
	}
	if all := tab.All(); all[0] != 1 || all[1] != 2 {
		t.Errorf("All = %v", all)
	}
	if v, ok := tab.Get("b"); !ok || v != 2 {
		t.Errorf("Get(b) = %v, %v", v, ok)
	}
	for _, tc := range []struct{ name, want string }{{"a", "things: Register called twice for a"}, {"A b", "things: invalid name"}} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), tc.want) {
					t.Errorf("Add(%q): panic %v, want %q", tc.name, r, tc.want)
				}
			}()
			tab.Add(tc.name, 0)
		}()
	}
	// The workload registry uses one: family/name names.
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(string), "Register called twice") {
				t.Errorf("duplicate workload: panic %v", r)
			}
		}()
		Register(Info{Name: "test/dup", Doc: "test only", New: func(*Args) (*Problem, error) { return &Problem{}, nil }})
		Register(Info{Name: "test/dup", Doc: "test only", New: func(*Args) (*Problem, error) { return &Problem{}, nil }})
	}()
	// A missing required field is named, with the workload.
	for _, tc := range []struct {
		info Info
		want string
	}{
		{Info{Name: "test/no-new", Doc: "test only"}, `workloads: Register("test/no-new"): missing New`},
		{Info{Name: "test/no-doc", New: func(*Args) (*Problem, error) { return &Problem{}, nil }}, `workloads: Register("test/no-doc"): missing Doc`},
	} {
		func() {
			defer func() {
				if r := recover(); r != tc.want {
					t.Errorf("Register(%s): panic = %v, want %q", tc.info.Name, r, tc.want)
				}
			}()
			Register(tc.info)
		}()
		if _, ok := Lookup(tc.info.Name); ok {
			t.Errorf("%s registered despite the panic", tc.info.Name)
		}
	}
}

func validName() *regexp.Regexp { return regexp.MustCompile(`^[a-z]+$`) }
