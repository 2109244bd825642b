package harness

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"membench/results"
)

// Manifest describes a sweep's output folder (manifest.json).
type Manifest struct {
	Config *Config `json:"config"`
	// ConfigHash identifies the config; --resume refuses another one.
	ConfigHash string `json:"config_hash"`
	Seed       int64  `json:"seed"`
	// Shard is "I/N" for a shard's output, "" for a whole sweep.
	Shard       string    `json:"shard,omitempty"`
	Cells       int       `json:"cells"`
	GitRevision string    `json:"git_revision"`
	GoVersion   string    `json:"go_version"`
	GOOS        string    `json:"goos"`
	GOARCH      string    `json:"goarch"`
	Host        string    `json:"host"`
	CPU         string    `json:"cpu"`
	NumCPU      int       `json:"num_cpu"`
	Jobs        int       `json:"jobs"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end,omitzero"`
	// Resumed lists the times the sweep was resumed.
	Resumed []time.Time `json:"resumed,omitempty"`
}

// configHash hashes the config's canonical JSON.
func configHash(c *Config) string {
	b, _ := json.Marshal(c)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

func newManifest(c *Config, shard string, cells, jobs int) *Manifest {
	host, _ := os.Hostname()
	return &Manifest{
		Config: c, ConfigHash: configHash(c), Seed: c.Seed, Shard: shard, Cells: cells,
		GitRevision: gitRevision(), GoVersion: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH,
		Host: host, CPU: cpuModel(), NumCPU: runtime.NumCPU(), Jobs: jobs, Start: time.Now().UTC(),
	}
}

func readManifest(path string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

func (m *Manifest) write(path string) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return results.WriteFileAtomic(path, append(b, '\n'))
}

// benchConfig is the file configuration of results.txt. The sweep's name
// stays in manifest.json: benchstat compares only results whose
// configuration lines agree, and two sweeps of one setup should compare.
func (m *Manifest) benchConfig() map[string]string {
	return map[string]string{"goos": m.GOOS, "goarch": m.GOARCH, "cpu": m.CPU, "pkg": "membench"}
}

// gitRevision is the VCS revision stamped into the binary, or the one of
// the working directory's repository, or "unknown".
func gitRevision() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			if dirty {
				rev += "-dirty"
			}
			return rev
		}
	}
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	rev := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		rev += "-dirty"
	}
	return rev
}

// cpuModel reads the CPU model name on Linux.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
