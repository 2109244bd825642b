//go:build unix

package harness

import (
	"errors"
	"os/exec"
	"syscall"
)

// closeOnExec keeps the record pipe out of the processes a subject starts
// (exec:PATH planners): one left holding it would hide the worker's death.
func closeOnExec(fd int) { syscall.CloseOnExec(fd) }

// killedBySignal reports whether a worker died of SIGKILL.
func killedBySignal(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}
