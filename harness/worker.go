package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"membench/results"
)

// workerEnv marks a process started as a sweep worker; memLimitEnv gives
// its memory limit in bytes.
const (
	workerEnv   = "MEMBENCH_WORKER"
	memLimitEnv = "MEMBENCH_WORKER_MEMORY_LIMIT"
)

// IsWorker reports whether this process was started as a sweep worker.
// Programs that run sweeps call WorkerMain first thing when it is true
// (cmd/membench's run and tests' TestMain do).
func IsWorker() bool { return os.Getenv(workerEnv) == "1" }

// WorkerMain serves cells: one JSON cell a line on stdin, one JSON record
// a line on file descriptor 3, until stdin closes. Stdout stays free for
// whatever a subject prints. It returns the process exit status.
func WorkerMain() int {
	// The parent owns interrupts: a Ctrl-C reaches the whole process group.
	signal.Ignore(os.Interrupt)
	// The parent stops a worker with SIGTERM first (see kill): the cell's
	// context ends, so that an exec: planner kills what it started.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	// Processes a subject starts (exec:PATH planners, which may run
	// membench) are not workers.
	os.Unsetenv(workerEnv)
	x := executor{workloadCache{keep: keptWorkloadBytes}}
	if v := os.Getenv(memLimitEnv); v != "" {
		os.Unsetenv(memLimitEnv)
		limit, err := strconv.ParseInt(v, 10, 64)
		if err != nil || limit <= 0 {
			fmt.Fprintf(os.Stderr, "membench worker: bad %s=%q\n", memLimitEnv, v)
			return 2
		}
		// Kept workloads take a small share of the heap a cell may use.
		x.keep = min(x.keep, limit/16)
		go watchMemory(limit)
	}
	out := os.NewFile(3, "records")
	if out == nil {
		fmt.Fprintln(os.Stderr, "membench worker: no record pipe on fd 3")
		return 2
	}
	closeOnExec(3)
	in := bufio.NewReader(os.Stdin)
	enc := json.NewEncoder(out)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var c Cell
			if err := json.Unmarshal(line, &c); err != nil {
				fmt.Fprintln(os.Stderr, "membench worker: bad cell:", err)
				return 2
			}
			rec := x.Execute(ctx, c)
			reapChildren()
			if ctx.Err() != nil {
				// Told to stop: die of the signal, as the parent (or
				// whoever sent it) expects.
				stop()
				raiseSIGTERM()
				return 1
			}
			if err := enc.Encode(&rec); err != nil {
				fmt.Fprintln(os.Stderr, "membench worker:", err)
				return 1
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0
			}
			fmt.Fprintln(os.Stderr, "membench worker:", err)
			return 1
		}
	}
}

// watchMemory ends the worker when its heap outgrows limit, so that a
// runaway cell is recorded as oom instead of taking the machine down. The
// GC is told the limit too, so garbage alone never trips it.
func watchMemory(limit int64) {
	debug.SetMemoryLimit(limit)
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	for range time.Tick(5 * time.Millisecond) {
		metrics.Read(sample)
		if used := int64(sample[0].Value.Uint64()); used > limit {
			fmt.Fprintf(os.Stderr, "membench worker: out of memory: %d heap bytes in use, over the sweep's memory_limit of %d\n", used, limit)
			os.Exit(3)
		}
	}
}

// worker is the parent's handle on one worker process.
type worker struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte
	stderr *tail
	done   chan struct{} // closed when the process has exited
	err    error         // the exit error, valid after done
}

// startWorker re-executes this binary as a worker.
func startWorker(exe string, memLimit int64) (*worker, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), workerEnv+"=1")
	if memLimit > 0 {
		cmd.Env = append(cmd.Env, memLimitEnv+"="+strconv.FormatInt(memLimit, 10))
	}
	cmd.ExtraFiles = []*os.File{pw}
	w := &worker{cmd: cmd, lines: make(chan []byte, 1), stderr: &tail{max: 4096}, done: make(chan struct{})}
	cmd.Stderr = w.stderr
	cmd.Stdout = io.Discard
	w.stdin, err = cmd.StdinPipe()
	if err != nil {
		pr.Close()
		pw.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, err
	}
	pw.Close()
	go func() {
		r := bufio.NewReaderSize(pr, 1<<16)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				break
			}
			w.lines <- line
		}
		pr.Close()
		close(w.lines)
	}()
	go func() {
		w.err = cmd.Wait()
		close(w.done)
	}()
	return w, nil
}

// run sends one cell and waits for its record, for at most the cell's
// timeout plus a grace period. A worker that overruns is killed and the
// cell recorded as a timeout; one that dies is recorded as oom when the
// runtime or the memory watchdog said it ran out of memory, else as an
// error (one killed by a signal with that signal's name). ok is false when the
// worker can no longer be used.
func (w *worker) run(ctx context.Context, c Cell) (rec results.Record, ok bool) {
	fail := func(status, msg string) (results.Record, bool) { return failed(c, status, msg), false }
	b, _ := json.Marshal(c)
	if _, err := w.stdin.Write(append(b, '\n')); err != nil {
		w.kill()
		return fail(results.StatusError, "worker: "+err.Error()+w.stderr.String())
	}
	grace := min(max(c.Timeout/10, time.Second), 10*time.Second)
	timer := time.NewTimer(c.Timeout + grace)
	defer timer.Stop()
	select {
	case line, open := <-w.lines:
		if !open {
			<-w.done
			msg := fmt.Sprintf("worker died: %v", w.err)
			if s := w.stderr.String(); s != "" {
				msg += "\n" + s
			}
			// A signal we did not send (ours, on a timeout or an
			// interrupt, never get here): another process, or the
			// kernel's OOM killer. Not the cell's own result, so resume
			// runs it again (see Rerun).
			if sig, ok := killedBySignal(w.err); ok {
				msg = killedPrefix + sig + " (not sent by membench: another process, or the kernel's OOM killer); --resume runs the cell again"
				if s := w.stderr.String(); s != "" {
					msg += "\n" + s
				}
				return fail(results.StatusError, msg)
			}
			// The runtime's or the watchdog's own word: the heap limit.
			if strings.Contains(w.stderr.String(), "out of memory") {
				return fail(results.StatusOOM, msg)
			}
			return fail(results.StatusError, msg)
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			w.kill()
			return fail(results.StatusError, "worker sent a bad record: "+err.Error())
		}
		return rec, true
	case <-timer.C:
		w.kill()
		return fail(results.StatusTimeout, fmt.Sprintf("cell timed out after %v; worker killed", c.Timeout))
	case <-ctx.Done():
		w.kill()
		return fail("", ctx.Err().Error())
	}
}

// failed is the record of a cell that ended without its worker's record.
func failed(c Cell, status, msg string) results.Record {
	rec := c.record()
	rec.Status, rec.Error = status, msg
	return rec
}

// kill stops the worker process and waits for it.
// It asks first (SIGTERM: the worker ends its cell's context, and an
// exec: planner kills the processes it started, which a SIGKILL of the
// worker would leave running), and kills after killGrace.
func (w *worker) kill() {
	if w.cmd.Process.Signal(syscall.SIGTERM) == nil {
		select {
		case <-w.done:
			return
		case <-time.After(killGrace):
		}
	}
	w.cmd.Process.Kill()
	<-w.done
}

// killGrace is how long a worker asked to stop may take.
const killGrace = time.Second

// close ends a healthy worker by closing its input.
func (w *worker) close() {
	w.stdin.Close()
	select {
	case <-w.done:
	case <-time.After(5 * time.Second):
		w.kill()
	}
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.buf))
}
