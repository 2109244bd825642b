package harness

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// lockName is the lock file inside an output folder. A sweep, a merge and
// a replot hold it for as long as they write the folder, so that two
// writers never interleave results.jsonl or clear each other's files.
const lockName = ".membench.lock"

// BusyError says that another process writes the folder. It is a failure
// of the work (exit status 1), not bad usage: the same command succeeds
// once the other writer is done.
type BusyError struct {
	Dir string
	// PID is the holder's process id, 0 when unknown.
	PID int
	// Stale is set where locks are plain files (no flock): a crash leaves
	// them behind, and the message says how to remove one.
	Stale bool
}

func (e *BusyError) Error() string {
	who := "another membench"
	if e.PID > 0 {
		who += fmt.Sprintf(" (pid %d)", e.PID)
	}
	msg := fmt.Sprintf("%s is in use: %s is writing to it; wait for it to end, or choose another --out", e.Dir, who)
	if e.Stale {
		msg += fmt.Sprintf(" (if no membench runs, remove %s)", strings.TrimSuffix(e.Dir, "/")+"/"+lockName)
	}
	return msg
}

// readPID reads the holder's pid from a lock file, 0 if there is none yet.
func readPID(f *os.File) int {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	if err != nil {
		return 0
	}
	return pid
}

// writePID records this process as the lock's holder.
func writePID(f *os.File) {
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
}
