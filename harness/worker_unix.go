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

// reapChildren reaps the worker's children that have ended: orphans of the
// processes an exec: planner started, which come to the worker (a child
// subreaper on Linux) and would stay zombies. It runs between cells, when
// no subject waits for a process of its own.
func reapChildren() {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		if err != nil || pid <= 0 {
			return
		}
	}
}

// raiseSIGTERM ends the worker by SIGTERM, its handler reset.
func raiseSIGTERM() { unix.Kill(unix.Getpid(), unix.SIGTERM) }
