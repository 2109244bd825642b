//go:build unix && !linux

package strategies

import (
	"os/exec"
	"syscall"
)

// contain runs the planner in its own process group, killed as a whole on
// a cancelled context and by the returned cleanup. Descendants that leave
// the group are not caught here (Linux's subreaper does that).
func contain(cmd *exec.Cmd) (cleanup func()) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	killGroupOnCancel(cmd)
	return func() { killGroup(cmd) }
}

// start starts the planner.
func start(cmd *exec.Cmd) error { return cmd.Start() }

// KillPlanners does nothing here: the planners of a process that died are
// not told from other processes.
func KillPlanners(pid int) {}
