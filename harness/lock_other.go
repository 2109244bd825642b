//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package harness

import (
	"errors"
	"os"
	"path/filepath"
)

// lockDir creates dir if needed and takes its writer lock where there is
// no flock: creating dir/.membench.lock exclusively. A crash leaves the
// file behind; the *BusyError then says to remove it.
func lockDir(dir string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		pid := 0
		if g, err := os.Open(path); err == nil {
			pid = readPID(g)
			g.Close()
		}
		return nil, &BusyError{Dir: dir, PID: pid, Stale: true}
	}
	if err != nil {
		return nil, err
	}
	writePID(f)
	return func() {
		f.Close()
		os.Remove(path)
	}, nil
}
