package allocators

import (
	"syscall"
	"time"
)

// threadCPU returns the CPU time the calling OS thread has used (user and
// system), so that benchmarks on a loaded machine can report the work
// done apart from the time spent waiting for a core.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
