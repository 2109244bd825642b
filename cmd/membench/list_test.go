package main

import (
	"regexp"
	"strings"
	"testing"

	"membench/strategies"
)

// TestListStrategiesByRuntime checks that `list strategies` prints one
// [runtime] header per group, in runtime order, each followed by exactly
// that runtime's strategies, with no trailing blanks.
func TestListStrategiesByRuntime(t *testing.T) {
	r := expect(t, 0, nil, "list", "strategies")
	var headers []string
	group := ""
	entry := regexp.MustCompile(`^  ([a-z0-9-]+|exec:PATH) `)
	for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		if line != strings.TrimRight(line, " ") {
			t.Errorf("line %q ends in blanks", line)
		}
		if h, ok := strings.CutPrefix(line, "  ["); ok {
			group = strings.TrimSuffix(h, "]")
			headers = append(headers, group)
			continue
		}
		m := entry.FindStringSubmatch(line)
		if m == nil {
			continue // a parameter line
		}
		want := "external"
		if m[1] != "exec:PATH" {
			info, ok := info(m[1])
			if !ok {
				t.Fatalf("list prints unknown strategy %q", m[1])
			}
			want = info.Runtime
		}
		if group != want {
			t.Errorf("%s listed under [%s], want [%s]", m[1], group, want)
		}
	}
	var want []string
	for _, g := range strategies.ByRuntime() {
		want = append(want, g.Runtime)
	}
	want = append(want, "external")
	if strings.Join(headers, ",") != strings.Join(want, ",") {
		t.Errorf("headers %v, want %v", headers, want)
	}
	for _, must := range []string{"tflite-gpu", "xla", "tflite", "tflm", "onnxruntime", "membench"} {
		if !strings.Contains(r.stdout, "  ["+must+"]\n") {
			t.Errorf("no [%s] group in:\n%s", must, r.stdout)
		}
	}
}

func info(name string) (strategies.Info, bool) {
	for _, in := range strategies.All() {
		if in.Name == name {
			return in, true
		}
	}
	return strategies.Info{}, false
}

// TestListHelp: list --help names the arguments list takes.
func TestListHelp(t *testing.T) {
	r := expect(t, 0, nil, "list", "--help")
	checkGolden(t, "help-list.txt", r.stdout)
}
