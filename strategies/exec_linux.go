package strategies

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// execTokenEnv marks every process a planner starts (the environment is
// inherited), so that its descendants can be told from other children
// once they are orphaned and reparented to us.
const execTokenEnv = "MEMBENCH_EXEC_TOKEN"

var (
	subreaper sync.Once
	execSeq   atomic.Int64
)

// contain runs the planner in its own process group, killed as a whole on
// a cancelled context and by the returned cleanup. A descendant that left
// the group (setsid, or a double fork) is caught too: this process is a
// child subreaper, so such orphans become its children, and cleanup kills
// and reaps every child carrying the planner's token (one that clears its
// environment escapes). Since the group no longer gets the terminal's
// Ctrl-C, the planner is also killed when the process that started it
// dies (a killed sweep worker must not leave planners running).
func contain(cmd *exec.Cmd) (cleanup func()) {
	subreaper.Do(func() { unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
	token := fmt.Sprintf("%d.%d", os.Getpid(), execSeq.Add(1))
	cmd.Env = append(cmd.Env, execTokenEnv+"="+token)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	killGroupOnCancel(cmd)
	return func() {
		killGroup(cmd)
		killOrphans(token, cmd.Process.Pid)
	}
}

// startMu makes one planner start at a time, as start changes a limit
// of the whole process.
var startMu sync.Mutex

// start starts the planner under a lower process limit (RLIMIT_NPROC,
// ulimit -u, a count of the user's processes and threads) than this
// process's, by nprocReserve, so that a planner that forks until the
// limit stops it leaves room for the threads this process and the other
// membench processes of the sweep create: the Go runtime cannot live
// without a thread it needs (it aborts, cgo or not), and the cleanup that
// kills the planner's processes must run. The limit is lowered around the
// fork, which the child inherits, and restored at once.
func start(cmd *exec.Cmd) error {
	startMu.Lock()
	defer startMu.Unlock()
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NPROC, &lim) != nil || lim.Cur == unix.RLIM_INFINITY {
		return cmd.Start()
	}
	lowered := lim
	lowered.Cur -= nprocReserve(lim.Cur)
	if unix.Setrlimit(unix.RLIMIT_NPROC, &lowered) != nil {
		return cmd.Start()
	}
	defer unix.Setrlimit(unix.RLIMIT_NPROC, &lim)
	return cmd.Start()
}

// nprocReserve is the part of a process limit of limit that a planner and
// its descendants may not take: enough for each membench process's
// threads (a few per CPU it runs on, and those blocked in system calls),
// at most half the limit.
func nprocReserve(limit uint64) uint64 {
	return min(limit/2, uint64(64+2*runtime.GOMAXPROCS(0)))
}

// killOrphans kills and reaps the children of this process (orphans
// reparented to it) whose environment carries token, except the planner
// itself (pid), which os/exec waits for. Killing one may orphan its own
// children, so it looks again until none is left.
func killOrphans(token string, pid int) {
	mark := []byte("\x00" + execTokenEnv + "=" + token + "\x00")
	for range 1000 {
		found := false
		for _, child := range children() {
			if child == pid {
				continue
			}
			if !carries(child, mark) {
				continue
			}
			unix.Kill(child, unix.SIGKILL)
			var ws unix.WaitStatus
			unix.Wait4(child, &ws, 0, nil)
			found = true
		}
		if !found {
			return
		}
	}
}

// KillPlanners kills what is left of the exec: planners that process pid
// started, for its parent once it died without cleaning up after them (a
// sweep worker killed by a signal): their processes carry pid in their
// token, and those that left the planner's group or outlived its leader
// are found by it. It looks again until none is left (a planner's script
// may fork while its siblings are killed).
func KillPlanners(pid int) {
	mark := []byte("\x00" + execTokenEnv + "=" + strconv.Itoa(pid) + ".")
	for range 100 {
		found := false
		procs, _ := filepath.Glob("/proc/[0-9]*")
		for _, f := range procs {
			p, err := strconv.Atoi(filepath.Base(f))
			if err == nil && carries(p, mark) && unix.Kill(p, unix.SIGKILL) == nil {
				found = true
			}
		}
		if !found {
			return
		}
	}
}

// carries reports whether the environment of process pid holds mark, a
// variable's text from its start ("\x00NAME=VALUE...").
func carries(pid int, mark []byte) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	return err == nil && bytes.Contains(append([]byte{0}, env...), mark)
}

// children lists this process's child pids, from every thread's
// /proc/self/task/T/children, or where the kernel has no such files, from
// the parent pid of every process.
func children() []int {
	files, _ := filepath.Glob("/proc/self/task/*/children")
	if len(files) == 0 {
		return childrenByScan()
	}
	var pids []int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, field := range bytes.Fields(b) {
			if pid, err := strconv.Atoi(string(field)); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

func childrenByScan() []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	me := os.Getpid()
	var pids []int
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		fields := bytes.Fields(b[i+1:])
		if len(fields) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(string(fields[1])); ppid == me {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
			pids = append(pids, pid)
		}
	}
	return pids
}
