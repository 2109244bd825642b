package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

func init() {
	register(&command{
		name:    "--version",
		usage:   "",
		summary: "Print membench's module version, VCS revision and Go version.",
		run:     runVersion,
	})
}

func runVersion(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, commands["--version"])
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return badUsage("--version: unexpected arguments %q", fs.Args())
	}
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprintln(e.stdout, versionLine(bi))
	return nil
}

// versionLine describes the binary from its build information (nil where
// the binary has none): module version, VCS revision and time, Go version
// and platform.
func versionLine(bi *debug.BuildInfo) string {
	version, goVersion := "(devel)", runtime.Version()
	rev, at, dirty := "unknown", "", false
	if bi != nil {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if dirty {
		rev += "-dirty"
	}
	if at != "" {
		rev += " (" + at + ")"
	}
	return fmt.Sprintf("membench %s, revision %s, %s %s/%s", version, rev, goVersion, runtime.GOOS, runtime.GOARCH)
}
