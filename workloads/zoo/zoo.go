package zoo

import (
	"fmt"
	"strconv"

	"membench/workloads"
)

// Limits on the parameters, well inside int64 sizes.
const (
	maxBatch      = 4096
	maxResolution = 8192
	maxSeq        = 65536
)

// elemSize returns the bytes per element of a dtype.
func elemSize(dtype string) (int64, error) {
	switch dtype {
	case "fp32":
		return 4, nil
	case "fp16":
		return 2, nil
	case "int8":
		return 1, nil
	}
	return 0, fmt.Errorf("dtype=%q: want fp32, fp16 or int8", dtype)
}

var commonParams = []workloads.ParamDoc{
	{Name: "batch", Default: "1", Doc: "batch size"},
	{Name: "dtype", Default: "fp32", Doc: "element type: fp32, fp16 or int8 (4, 2, 1 bytes)"},
}

// config holds the parsed parameters of a model.
type config struct {
	batch int
	dtype string
	elem  int64
	// res is the input height and width (image models).
	res int
	// seq is the sequence length (transformers); for gpt2 decode, the
	// tokens already in the KV cache.
	seq int
	// mode and steps are gpt2's.
	mode  string
	steps int
}

// model is one registered architecture.
type model struct {
	name, doc string
	// extra documents the parameters beyond batch and dtype.
	extra []workloads.ParamDoc
	// parse reads the extra parameters into c.
	parse func(a *workloads.Args, c *config)
	// check validates them.
	check func(c *config) error
	// build adds the model's ops to g and returns its outputs.
	build func(g *Graph, c *config) []Tensor
	// spec writes the extra parameters back, for the problem's name.
	spec func(c *config) string
}

// new returns the model's usage records for a configuration given as
// parameters (batch, dtype and the model's own).
func (m *model) new(a *workloads.Args) (*workloads.Problem, error) {
	c := &config{batch: a.Int("batch", 1), dtype: a.String("dtype", "fp32")}
	m.parse(a, c)
	if err := a.Check(append(append([]workloads.ParamDoc(nil), commonParams...), m.extra...)); err != nil {
		return nil, err
	}
	var err error
	if c.elem, err = elemSize(c.dtype); err != nil {
		return nil, workloads.Usagef("%s: %v", m.name, err)
	}
	if c.batch < 1 || c.batch > maxBatch {
		return nil, workloads.Usagef("%s: batch=%d must be in [1, %d]", m.name, c.batch, maxBatch)
	}
	if err := m.check(c); err != nil {
		return nil, workloads.Usagef("%s: %v", m.name, err)
	}
	g := NewGraph(c.elem)
	g.Output(m.build(g, c)...)
	return g.Problem(fmt.Sprintf("%s?batch=%d&dtype=%s%s", m.name, c.batch, c.dtype, m.spec(c))), nil
}

func register(m *model) {
	workloads.Register(workloads.Info{
		Name:   m.name,
		Doc:    m.doc,
		Params: append(append([]workloads.ParamDoc(nil), commonParams...), m.extra...),
		New:    m.new,
	})
}

// imageParam documents the resolution parameter.
func imageParam(def int) []workloads.ParamDoc {
	return []workloads.ParamDoc{{Name: "resolution", Default: strconv.Itoa(def), Doc: "input height and width in pixels"}}
}

func resolutionSpec(c *config) string { return fmt.Sprintf("&resolution=%d", c.res) }

// registerImage registers an image model taking a resolution parameter;
// minRes is the smallest input its strides and valid paddings accept.
func registerImage(name, doc string, defRes, minRes int, build func(g *Graph, batch, res int) Tensor) {
	register(&model{
		name: name, doc: doc,
		extra: imageParam(defRes),
		parse: func(a *workloads.Args, c *config) { c.res = a.Int("resolution", defRes) },
		check: func(c *config) error {
			if c.res < minRes || c.res > maxResolution {
				return fmt.Errorf("resolution=%d must be in [%d, %d]", c.res, minRes, maxResolution)
			}
			return nil
		},
		build: func(g *Graph, c *config) []Tensor { return []Tensor{build(g, c.batch, c.res)} },
		spec:  resolutionSpec,
	})
}

// checkSeq validates a sequence length.
func checkSeq(seq, limit int) error {
	if seq < 1 || seq > limit {
		return fmt.Errorf("seq=%d must be in [1, %d]", seq, limit)
	}
	return nil
}
