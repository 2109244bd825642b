package workloads

// Workload is a loaded workload. Problem is always set; Trace is the
// recorded trace when the input was one, else nil (use Problem.ToTrace).
type Workload struct {
	// Spec is the spec or path as given.
	Spec    string
	Problem *Problem
	Trace   *Trace
}

// Load opens a workload: a file path (format sniffed from its header or
// content) or a registered name with parameters, e.g.
// `synthetic/random-dag?n=1000&seed=3`.
func Load(spec string) (*Workload, error) {
	panic("TODO: issue 3")
}

// ToTrace turns the problem into a trace (DESIGN §1): walking tasks in
// order, first allocate every buffer with First == t, then free every buffer
// with Last == t, each group in ID order.
func (p *Problem) ToTrace() *Trace {
	panic("TODO: issue 3")
}

// ToProblem turns the trace into a problem by numbering events (task =
// event index). Views share their storage's buffer, which lives until the
// last tensor sharing it is freed.
func (t *Trace) ToProblem() (*Problem, error) {
	panic("TODO: issue 3")
}
