//go:build unix

package strategies

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// killGroupOnCancel has a cancelled context kill the planner's whole
// process group (the planner is its leader), so that a script's children
// die with it.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
}

// killGroup kills what is left of the planner's process group. The group
// id stays reserved while any member lives, so it names no other group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
