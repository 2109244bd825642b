package workloads

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Info describes a registered workload generator.
type Info struct {
	// Name is `family/name`, e.g. "synthetic/random-dag" or "zoo/resnet-50".
	Name string
	Doc  string
	// Params documents every parameter with its default.
	Params []ParamDoc
	// New builds the problem; it reads its parameters from args. It must be
	// deterministic for given parameters, across runs and machines.
	New func(args *Args) (*Problem, error)
}

var (
	regMu     sync.RWMutex
	registry  = map[string]Info{}
	validName = regexp.MustCompile(`^[a-z0-9-]+(/[a-z0-9-]+)*$`)
)

// Register makes a workload available by name. It panics on a duplicate or
// invalid name.
func Register(info Info) {
	regMu.Lock()
	defer regMu.Unlock()
	if !validName.MatchString(info.Name) {
		panic(fmt.Sprintf("workloads: invalid name %q", info.Name))
	}
	if info.New == nil {
		panic(fmt.Sprintf("workloads: %s registered without New", info.Name))
	}
	if _, dup := registry[info.Name]; dup {
		panic(fmt.Sprintf("workloads: Register called twice for %s", info.Name))
	}
	registry[info.Name] = info
}

// All returns every registered workload, sorted by name.
func All() []Info {
	regMu.RLock()
	defer regMu.RUnlock()
	out := make([]Info, 0, len(registry))
	for _, in := range registry {
		out = append(out, in)
	}
	slices.SortFunc(out, func(a, b Info) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Lookup returns the registered workload info for name.
func Lookup(name string) (Info, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	in, ok := registry[name]
	return in, ok
}
