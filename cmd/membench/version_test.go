package main

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionLine(t *testing.T) {
	platform := " " + runtime.GOOS + "/" + runtime.GOARCH
	for _, tc := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{nil, "membench (devel), revision unknown, " + runtime.Version() + platform},
		{&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "membench", Version: "v1.2.3"}},
			"membench v1.2.3, revision unknown, go1.26.0" + platform},
		{&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "membench", Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "41fdd9d0"}, {Key: "vcs.time", Value: "2026-11-23T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			"membench (devel), revision 41fdd9d0-dirty (2026-11-23T10:00:00Z), go1.26.0" + platform},
	} {
		if got := versionLine(tc.bi); got != tc.want {
			t.Errorf("versionLine(%+v) = %q, want %q", tc.bi, got, tc.want)
		}
	}
	r := expect(t, 0, nil, "--version")
	if !strings.HasPrefix(r.stdout, "membench ") || !strings.HasSuffix(r.stdout, runtime.Version()+platform+"\n") || strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("membench --version printed %q", r.stdout)
	}
	expect(t, 2, []string{`--version: unexpected arguments ["x"]`}, "--version", "x")
}
