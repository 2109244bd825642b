package strategies

import (
	"membench/strategies/internal/search"
	"membench/workloads"
)

// hill-climb is OmniMalloc's HillClimbAllocator (fpedd/omnimalloc,
// revision 2e9cf4ede72f: src/python/omnimalloc/allocators/hillclimb.py):
// the simulated-annealing kernel (simulated_annealing.go) at temperature 0
// and cooling rate 1, so that it keeps a peak swap only when the peak does
// not grow. It draws the same moves from the same seed.
func init() {
	Register(Info{
		Name:    "hill-climb",
		Runtime: "omnimalloc",
		Kind:    Offsets,
		Doc:     "OmniMalloc's hill climb over first-fit orders: simulated annealing at temperature 0 (keeps non-worsening peak swaps)",
		Params: []workloads.ParamDoc{
			search.SeedDoc,
			{Name: "max_iterations", Default: "3000", Doc: "iteration budget"},
			search.TimeoutDoc,
		},
		Forms: workloads.FormAlign | workloads.FormFixed,
		New: func(args *workloads.Args) (Strategy, error) {
			return newAnnealing("hill-climb", args, 0, 1)
		},
	})
}
