//go:build unix

// Package cputime reads the CPU time the process has used, for the
// benchmarks: on a loaded machine a steadier measure than wall time.
package cputime

import (
	"syscall"
	"time"
)

// Process returns the CPU time (user and system) this process has used so
// far, or 0 where it cannot tell.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
