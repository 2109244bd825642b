//go:build unix

package harness

import (
	"errors"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// closeOnExec keeps the record pipe out of the processes a subject starts
// (exec:PATH planners): one left holding it would hide the worker's death.
func closeOnExec(fd int) { syscall.CloseOnExec(fd) }

// killedBySignal reports whether a worker died of a signal, and which.
func killedBySignal(err error) (string, bool) {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return "", false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return "", false
	}
	name := unix.SignalName(ws.Signal())
	if name == "" {
		name = ws.Signal().String()
	}
	return name, true
}
