package strategies

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"membench/strategies/internal/kernel"
	"membench/workloads"
)

// Plan places every buffer of a problem in one arena.
type Plan struct {
	// Offsets[i] is the byte offset of buffer i, in the problem's order.
	Offsets []int64
	// Footprint is max(offset+size) over buffers, 0 for none. For a
	// problem with several memory spaces it is the sum of Footprints.
	Footprint int64
	// Footprints[m] is the footprint of memory space m (offsets are within
	// each space) for a problem with several memory spaces
	// (workloads.FormMemories); nil otherwise.
	Footprints []int64
	// Arena is the arena the strategy's runtime itself would ask for,
	// where that differs from Footprint: runtimes that round every size
	// (or the arena's end) up to the alignment count the topmost buffer's
	// rounding (TFLite Micro's GetMaximumMemorySize, ONNX Runtime's peak,
	// ExecuTorch's total, MegEngine's m_peak_usage). 0 when it is
	// Footprint.
	Arena int64
	// ObjectIDs[i] is the shared object holding buffer i; nil for offset
	// planners.
	ObjectIDs []int
	// ObjectSizes[k] is the size of shared object k; nil for offset planners.
	ObjectSizes []int64
	// ObjectShapes[k] is the extents of shared object k in a plan of a
	// problem whose sizes are textures or BHWC shapes (workloads.SizeType;
	// ObjectSizes then holds their bytes); nil otherwise.
	ObjectShapes []workloads.Shape
	// Bound is a lower bound on the footprint the strategy proved (at least
	// LB_load); 0 when it proved none.
	Bound int64
	// Optimal reports that the strategy proved Footprint optimal
	// (Footprint == Bound).
	Optimal bool
	// Nodes is the number of search nodes a search-based strategy visited
	// (minimalloc); 0 when it does not say.
	Nodes int64
}

// ErrTooManyBuffers is the refusal of a strategy that plans at most a
// fixed number of buffers: its runtime's limit (tflm-linear: 1,024, as
// TFLite Micro refuses them), or where its search would run for hours
// (min-cost-flow: 10,000); test with errors.Is.
var ErrTooManyBuffers = errors.New("too many buffers")

// IsObjects reports whether the plan is a shared-object assignment.
func (p *Plan) IsObjects() bool { return p.ObjectIDs != nil }

// Strategy plans a whole problem ahead of time.
type Strategy interface {
	// Name returns the spec the strategy was built from.
	Name() string
	// Plan returns a plan for p. It honours ctx: when ctx is cancelled it
	// returns ctx.Err() promptly.
	Plan(ctx context.Context, p *workloads.Problem) (*Plan, error)
}

// Kind says what a strategy returns.
type Kind string

// The kinds of strategies.
const (
	Objects  Kind = "objects"
	Offsets  Kind = "offsets"
	External Kind = "external"
)

// Info describes a registered strategy.
type Info struct {
	Name string
	// Runtime is the family the strategy belongs to (DESIGN §9): the
	// runtime whose planner it follows ("xla", "tflite", "tflm",
	// "onnxruntime", ...), "tflite-gpu" for TFLite's GPU-delegate planners,
	// "membench" for membench's own. Every Register call states it.
	Runtime string
	Kind    Kind
	Doc     string
	// Arena says how the runtime's own arena size differs from max(offset
	// + size), where it can (Plan.Arena); "" where they agree.
	Arena  string
	Params []workloads.ParamDoc
	// Forms are the problem forms the strategy honours (workloads.Forms).
	// The registry refuses the others with ErrUnsupportedForm before the
	// strategy sees the problem, except hints (advice, ignored) and memory
	// spaces, which it plans one space at a time unless Forms has
	// FormMemories.
	Forms workloads.Forms
	// SizeTypes are the size types other than bytes the strategy plans
	// (workloads.SizeType), as TFLite's AssignObjectsToTensors dispatches
	// them; the registry refuses a problem of any other with
	// ErrUnsupportedSizeType.
	SizeTypes []workloads.SizeType
	// New builds the strategy; it reads its parameters from args.
	New func(args *workloads.Args) (Strategy, error)
}

var registry = workloads.NewTable[Info]("strategies", regexp.MustCompile(`^[a-z0-9-]+$`))

// Register makes a strategy available by name. Like analysis.Validate for
// an analyzer, it checks info and panics naming the strategy and the field
// that is missing or invalid: New, Doc, Kind (objects, offsets or external)
// and Runtime (lower case, [a-z0-9-]+) are required. It also panics on a
// duplicate or invalid name (names match [a-z0-9-]+), like database/sql
// drivers.
func Register(info Info) {
	if err := info.check(); err != nil {
		panic(fmt.Sprintf("strategies: Register(%q): %v", info.Name, err))
	}
	registry.Add(info.Name, info)
}

// runtimeName is the form of Info.Runtime.
var runtimeName = regexp.MustCompile(`^[a-z0-9-]+$`)

// check reports the first required field of info that is missing or
// invalid.
func (info *Info) check() error {
	switch {
	case info.New == nil:
		return errors.New("missing New")
	case info.Doc == "":
		return errors.New("missing Doc")
	case info.Kind == "":
		return fmt.Errorf("missing Kind (want %s, %s or %s)", Objects, Offsets, External)
	case info.Kind != Objects && info.Kind != Offsets && info.Kind != External:
		return fmt.Errorf("invalid Kind %q (want %s, %s or %s)", info.Kind, Objects, Offsets, External)
	case info.Runtime == "":
		return errors.New(`missing Runtime (the runtime whose planner it follows, "membench" for membench's own)`)
	case !runtimeName.MatchString(info.Runtime):
		return fmt.Errorf("invalid Runtime %q (want %s)", info.Runtime, runtimeName)
	}
	return nil
}

// RuntimeGroup is the registered strategies of one runtime.
type RuntimeGroup struct {
	Runtime string
	// Infos are sorted by name.
	Infos []Info
}

// ByRuntime returns the registered strategies grouped by runtime, the
// groups sorted by runtime name.
func ByRuntime() []RuntimeGroup {
	var groups []RuntimeGroup
	at := map[string]int{}
	for _, in := range All() {
		k, ok := at[in.Runtime]
		if !ok {
			k = len(groups)
			at[in.Runtime] = k
			groups = append(groups, RuntimeGroup{Runtime: in.Runtime})
		}
		groups[k].Infos = append(groups[k].Infos, in)
	}
	slices.SortFunc(groups, func(a, b RuntimeGroup) int { return strings.Compare(a.Runtime, b.Runtime) })
	return groups
}

// Simple wraps a parameterless strategy constructor for Info.New.
func Simple(f func() Strategy) func(*workloads.Args) (Strategy, error) {
	return func(*workloads.Args) (Strategy, error) { return f(), nil }
}

// All returns every registered strategy, sorted by name.
func All() []Info { return registry.All() }

// Names returns the registered names, sorted.
func Names() []string { return registry.Names() }

// Lookup builds the strategy named by spec (`NAME` or `NAME?key=value&...`,
// or `exec:PATH`). Unknown names and parameters are UsageErrors that list
// the valid ones.
func Lookup(spec string) (Strategy, error) {
	if strings.HasPrefix(spec, "exec:") {
		// An external planner gets a MiniMalloc CSV of sizes and
		// lifetimes (exec.go): it honours no form, and each memory
		// space goes to it as a problem of its own.
		s, err := newExec(spec)
		if err != nil {
			return nil, err
		}
		return named{s, spec, spec, 0, nil}, nil
	}
	sp, err := workloads.ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	info, ok := registry.Get(sp.Name)
	if !ok {
		return nil, workloads.Usagef("unknown strategy %q (valid: %s, exec:PATH)", sp.Name, strings.Join(Names(), ", "))
	}
	args := workloads.NewArgs(sp)
	s, err := info.New(args)
	if err != nil {
		return nil, err
	}
	if err := args.Check(info.Params); err != nil {
		return nil, err
	}
	forms := info.Forms
	if h, ok := s.(interface{ honours() workloads.Forms }); ok {
		forms = h.honours() // forms that depend on the parameters (best-of's members)
	}
	return named{s, spec, info.Name, forms, info.SizeTypes}, nil
}

// named reports the spec as given as the strategy's name, and refuses the
// problem forms and size types the strategy does not honour.
type named struct {
	Strategy
	spec  string
	name  string
	forms workloads.Forms
	sizes []workloads.SizeType
}

// Plan plans p with the strategy after checking its size type
// (checkSizeType) and forms (planForms).
func (n named) Plan(ctx context.Context, p *workloads.Problem) (*Plan, error) {
	if err := checkSizeType(n.name, p, n.sizes); err != nil {
		return nil, err
	}
	return planForms(ctx, n.Strategy, n.name, n.forms, p)
}

func (n named) Name() string { return n.spec }

// Unwrap returns the strategy built from the spec.
func (n named) Unwrap() Strategy { return n.Strategy }

// AlignUp rounds x up to a multiple of align (align <= 1 leaves x as is).
func AlignUp(x, align int64) int64 { return kernel.AlignUp(x, align) }

// ObjectsToOffsets lays shared objects back to back in id order, as
// TFLite's ObjectsToOffsets does, except that where align > 1 each object
// starts at the next aligned offset. It fills plan.Offsets and
// plan.Footprint from plan.ObjectIDs and plan.ObjectSizes and the sizes of
// the buffers.
func ObjectsToOffsets(plan *Plan, bufs []workloads.Buffer, align int64) {
	starts := make([]int64, len(plan.ObjectSizes))
	var next int64
	for k, s := range plan.ObjectSizes {
		next = AlignUp(next, align)
		starts[k] = next
		next += s
	}
	plan.Offsets = make([]int64, len(plan.ObjectIDs))
	plan.Footprint = 0
	for i, id := range plan.ObjectIDs {
		plan.Offsets[i] = starts[id]
		if end := starts[id] + bufs[i].Size; end > plan.Footprint {
			plan.Footprint = end
		}
	}
}

// roundedArena returns max(offset + size rounded up to align) over the
// buffers, 0 for none: the arena of a runtime that rounds sizes before
// planning.
func roundedArena(bufs []workloads.Buffer, offsets []int64, align int64) int64 {
	var a int64
	for i, b := range bufs {
		a = max(a, offsets[i]+AlignUp(b.Size, align))
	}
	return a
}

// setArena records a runtime's own arena size in plan where it differs
// from the footprint.
func setArena(plan *Plan, arena int64) *Plan {
	if arena != plan.Footprint {
		plan.Arena = arena
	}
	return plan
}

// Footprint returns max(offset+size) over the buffers, 0 for none.
func Footprint(bufs []workloads.Buffer, offsets []int64) int64 {
	var fp int64
	for i, b := range bufs {
		if e := offsets[i] + b.Size; e > fp {
			fp = e
		}
	}
	return fp
}
