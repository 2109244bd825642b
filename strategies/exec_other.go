//go:build !linux

package strategies

import "os/exec"

// killGroup leaves the default: a cancelled context kills the planner.
func killGroup(*exec.Cmd) {}
