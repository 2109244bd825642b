//go:build unix

package harness

import "syscall"

// closeOnExec keeps the record pipe out of the processes a subject starts
// (exec:PATH planners): one left holding it would hide the worker's death.
func closeOnExec(fd int) { syscall.CloseOnExec(fd) }
