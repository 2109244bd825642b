package workloads

import (
	"fmt"
	"regexp"
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

var registry = NewTable[Info]("workloads", regexp.MustCompile(`^[a-z0-9-]+(/[a-z0-9-]+)*$`))

// Register makes a workload available by name. Like strategies.Register,
// it panics naming the workload and the field when New or Doc is missing,
// and on a duplicate or invalid name.
func Register(info Info) {
	switch {
	case info.New == nil:
		panic(fmt.Sprintf("workloads: Register(%q): missing New", info.Name))
	case info.Doc == "":
		panic(fmt.Sprintf("workloads: Register(%q): missing Doc", info.Name))
	}
	registry.Add(info.Name, info)
}

// All returns every registered workload, sorted by name.
func All() []Info { return registry.All() }

// Lookup returns the registered workload info for name.
func Lookup(name string) (Info, bool) { return registry.Get(name) }
