//go:build linux

package strategies_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"membench/internal/proctest"
	"membench/strategies"
)

// The roles of the test binary in TestExecUnderProcessLimit, each given
// the test's folder: the process that plans under a process limit, and
// the planner that forks until it can no more.
const (
	nprocPlanEnv = "MEMBENCH_TEST_NPROC_PLAN"
	nprocBombEnv = "MEMBENCH_TEST_NPROC_BOMB"
)

// nobody is the user the test plans as: RLIMIT_NPROC does not bind root.
const nobody = 65534

// TestExecUnderProcessLimit: a planner that forks until the process limit
// (ulimit -u) stops it leaves this process room for the threads it needs,
// and nothing of it outlives the plan. The test binary, run as nobody
// under a process limit, plans with a copy of itself that forks sleeps
// until no fork succeeds, then needs 32 more threads (each goroutine
// locked to its own), which the Go runtime aborts without, and cancels
// the plan.
func TestExecUnderProcessLimit(t *testing.T) {
	if dir := os.Getenv(nprocBombEnv); dir != "" {
		forkBomb(dir)
	}
	if dir := os.Getenv(nprocPlanEnv); dir != "" {
		os.Exit(planUnderLimit(dir))
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root, to plan as user nobody: the process count of one's own user moves with whatever else it runs")
	}
	// A folder nobody may enter, holding a copy of the test binary
	// (go test's own folder is private).
	dir, err := os.MkdirTemp("", "membench-nproc-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "strategies.test")
	if err := copyFile(self, bin); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.run=^TestExecUnderProcessLimit$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), nprocPlanEnv+"="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) {
		t.Skipf("cannot run as user %d: %v", nobody, err)
	}
	if err != nil || !bytes.Contains(out, []byte("planned under the limit\n")) {
		t.Errorf("planning under a process limit: %v\n%s", err, tailOf(out, 3000))
	}
	// Every process of the planner carries the bomb's variable.
	var left []int
	for range 50 {
		if left = proctest.Marked(nprocBombEnv + "=" + dir); len(left) == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(left) > 0 {
		t.Errorf("%d processes of the planner outlived it: %v", len(left), left)
		for _, pid := range left {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// planUnderLimit is the test binary as nobody: it sets a process limit
// 120 above what nobody runs now, plans with the fork bomb, and once the
// bomb is stopped by the limit, checks that 48 processes or threads are
// still to be had, starts 32 threads and cancels the plan.
// It returns the exit status.
func planUnderLimit(dir string) int {
	fail := func(format string, args ...any) int {
		fmt.Printf(format+"\n", args...)
		return 1
	}
	limit := userThreads(os.Getuid()) + 120
	if err := unix.Setrlimit(unix.RLIMIT_NPROC, &unix.Rlimit{Cur: limit, Max: limit}); err != nil {
		return fail("setrlimit: %v", err)
	}
	os.Setenv(nprocBombEnv, dir)
	os.Setenv("GOMAXPROCS", "1") // the bomb's own runtime, to need few threads
	s, err := strategies.Lookup("exec:" + filepath.Join(dir, "strategies.test") + " -test.run=^TestExecUnderProcessLimit$")
	if err != nil {
		return fail("%v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	planned := make(chan error, 1)
	go func() {
		_, err := s.Plan(ctx, execProblem(0))
		planned <- err
	}()
	full := filepath.Join(dir, "full")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(full); err == nil {
			break
		}
		select {
		case err := <-planned:
			return fail("the planner ended before it reached the limit: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			return fail("the planner did not reach the limit in a minute")
		}
	}
	// Room is left (without the reserve, the bomb fills the limit but for
	// a thread or two)...
	if used := userThreads(os.Getuid()); used+48 > limit {
		return fail("the planner left %d of the limit of %d", limit-min(used, limit), limit)
	}
	// ...for 32 goroutines locked to threads of their own: the runtime
	// creates the threads, or aborts.
	var started sync.WaitGroup
	release := make(chan struct{})
	for range 32 {
		started.Add(1)
		go func() {
			runtime.LockOSThread()
			started.Done()
			<-release
			runtime.UnlockOSThread()
		}()
	}
	started.Wait()
	close(release)
	cancel()
	if err := <-planned; !errors.Is(err, context.Canceled) {
		return fail("plan: %v, want it cancelled", err)
	}
	fmt.Println("planned under the limit")
	return 0
}

// forkBomb is the planner: it starts sleeps until no fork succeeds 20
// times in a row, says so in dir/full, and waits to be killed.
func forkBomb(dir string) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		os.Exit(3)
	}
	attr := &syscall.ProcAttr{Env: os.Environ()}
	for failed := 0; failed < 20; {
		if _, err := syscall.ForkExec(sleep, []string{"sleep", "600"}, attr); err != nil {
			failed++
			time.Sleep(time.Millisecond)
			continue
		}
		failed = 0
	}
	os.WriteFile(filepath.Join(dir, "full"), nil, 0o644)
	time.Sleep(time.Hour)
}

// userThreads counts the threads of the processes of user uid, which its
// process limit counts.
func userThreads(uid int) uint64 {
	files, _ := filepath.Glob("/proc/[0-9]*/status")
	var n uint64
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		mine, threads := false, uint64(0)
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			k, v, _ := strings.Cut(sc.Text(), ":")
			fields := strings.Fields(v)
			switch {
			case k == "Uid" && len(fields) > 0:
				mine = fields[0] == strconv.Itoa(uid)
			case k == "Threads" && len(fields) > 0:
				threads, _ = strconv.ParseUint(fields[0], 10, 64)
			}
		}
		fh.Close()
		if mine {
			n += threads
		}
	}
	return n
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func tailOf(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// TestKillPlanners: the processes left of the planners of a dead process
// are told by its pid in their token, and only they are killed.
func TestKillPlanners(t *testing.T) {
	const dead = 999999999 // no process has this pid
	start := func(token string) *exec.Cmd {
		cmd := exec.Command("sleep", "600")
		cmd.Env = append(os.Environ(), "MEMBENCH_EXEC_TOKEN="+token)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	left := start(strconv.Itoa(dead) + ".3")
	other := start(strconv.Itoa(dead) + "1.3")
	defer other.Process.Kill()
	strategies.KillPlanners(dead)
	done := make(chan error, 1)
	go func() { done <- left.Wait() }()
	select {
	case err := <-done:
		if ws, ok := left.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
			t.Errorf("the dead process's planner ended with %v, want SIGKILL", err)
		}
	case <-time.After(10 * time.Second):
		left.Process.Kill()
		t.Fatal("the dead process's planner outlived KillPlanners")
	}
	if alive := proctest.Marked("MEMBENCH_EXEC_TOKEN=" + strconv.Itoa(dead) + "1.3"); len(alive) != 1 {
		t.Errorf("another process's planner was killed")
	}
}
