//go:build !unix

package strategies

import "os/exec"

// contain leaves the default: a cancelled context kills the planner.
func contain(cmd *exec.Cmd) (cleanup func()) {
	return func() {
		if cmd.Process != nil {
			cmd.Process.Kill()
		}
	}
}

// start starts the planner.
func start(cmd *exec.Cmd) error { return cmd.Start() }

// KillPlanners does nothing here: the planners of a process that died are
// not told from other processes.
func KillPlanners(pid int) {}
