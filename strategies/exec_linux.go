package strategies

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// killGroup runs the planner in its own process group and has a cancelled
// context kill the whole group, so that a script's children die with it.
// Since the group no longer gets the terminal's Ctrl-C, the planner is
// also killed when the process that started it dies (a killed sweep
// worker must not leave planners running).
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
}
