package harness

import (
	"errors"
	"os"

	"membench/workloads"
)

// readFile reads a config file, turning a missing file into an input error.
func readFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &workloads.InputError{File: path, Msg: "no such file"}
	}
	return data, err
}
