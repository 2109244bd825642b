//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// lockDir creates dir if needed and takes its writer lock: an exclusive
// flock on dir/.membench.lock, which the kernel drops when the process
// dies, so a killed sweep never leaves the folder locked. It fails at
// once with a *BusyError while another process holds it. release removes
// the lock file and unlocks.
func lockDir(dir string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, lockName)
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			pid := readPID(f)
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, &BusyError{Dir: dir, PID: pid}
			}
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		// The previous holder removes the file on release: if it did so
		// after we opened it, we hold a lock on a file no one else will
		// see, and must lock the new one instead.
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			writePID(f)
			return func() {
				os.Remove(path)
				f.Close()
			}, nil
		}
		f.Close()
	}
}
