// Package derived serves the usage records membench derives from model
// files it does not ship (.tflite, .onnx): the records are committed as
// membench JSON beside the source file's sha256, registered through
// Loader, and re-derived and compared by Check whenever the files are
// present.
package derived

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	pathpkg "path"
	"path/filepath"
	"testing"

	"membench/workloads"
)

// Loader returns a registered workload's constructor: it reads the
// records at path in fsys and marks them as read from format, so that
// planners whose defaults depend on the model format see one.
func Loader(fsys fs.FS, path, format string) func(*workloads.Args) (*workloads.Problem, error) {
	return func(*workloads.Args) (*workloads.Problem, error) {
		raw, err := fs.ReadFile(fsys, path)
		if err != nil {
			return nil, err
		}
		w, err := workloads.LoadBytes(raw, pathpkg.Base(path))
		if err != nil {
			return nil, err
		}
		w.Problem.Format = format
		return w.Problem, nil
	}
}

// Check reads the model file dir/file, checks its sha256 and that it
// sniffs as format, derives its records and compares them with the
// committed path, or rewrites path when update is set.
func Check(t testing.TB, dir, file, sha, format, path string, update bool) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	if got := hex.EncodeToString(sum[:]); got != sha {
		t.Errorf("%s: sha256 %s, recorded %s", file, got, sha)
	}
	w, err := workloads.LoadBytes(raw, file)
	if err != nil {
		t.Fatal(err)
	}
	if w.Format != format {
		t.Fatalf("%s sniffed as %s, want %s", file, w.Format, format)
	}
	w.Problem.Name = file
	var b bytes.Buffer
	if err := workloads.WriteJSON(&b, w.Problem); err != nil {
		t.Fatal(err)
	}
	Golden(t, path, b.Bytes(), update)
}

// Golden compares got with the committed file at path, or rewrites path
// when update is set.
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: rerun with -update", path)
	}
}
