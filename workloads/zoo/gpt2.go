package zoo

import (
	"fmt"

	"membench/workloads"
)

// GPT-2 small: Radford et al., "Language Models are Unsupervised Multitask
// Learners", 2019, Table 2 (the 117M model: 12 layers, d_model 768) with
// GPT's 12 heads, feed-forward 3072, 1024 positions and the 50,257-token
// vocabulary (Section 2.3); pre-layer-norm blocks and a final layer norm.
// Graph per layer: layer norm, FULLY_CONNECTED to 3x768 (c_attn), SPLIT
// into Q, K, V, heads split (RESHAPE, TRANSPOSE) for each, attention
// (BATCH_MATMUL, MUL, causal-mask ADD in prefill, SOFTMAX, BATCH_MATMUL,
// TRANSPOSE, RESHAPE), FULLY_CONNECTED, ADD residual, layer norm,
// FULLY_CONNECTED 3072, GELU, FULLY_CONNECTED 768, ADD; then layer norm
// and the FULLY_CONNECTED to the vocabulary (tied embeddings) whose logits
// are the output.
//
// mode=prefill runs seq tokens at once. mode=decode runs `steps` single-
// token steps after a prompt of seq tokens, as one unrolled schedule: each
// step's token ids are an input and its logits an output (sampling happens
// outside the graph); per layer, CONCATENATION appends the step's K and V
// to the cache, giving caches of seq+1, seq+2, ... positions that live
// until the next step's CONCATENATION reads them. The prompt's cache is an
// input and the final caches are outputs, so neither is planned.

const (
	gpt2Layers, gpt2Hidden, gpt2Heads, gpt2FF, gpt2Positions, gpt2Vocab = 12, 768, 12, 3072, 1024, 50257
)

func init() {
	register(&model{
		name: "zoo/gpt2-small",
		doc:  "GPT-2 small (Radford et al. 2019): 12 layers, 768 hidden; prefill, or decode steps with a growing KV cache",
		extra: []workloads.ParamDoc{
			{Name: "mode", Default: "prefill", Doc: "prefill (seq tokens at once) or decode (single-token steps)"},
			{Name: "seq", Default: "128", Doc: "prefill: sequence length; decode: tokens already in the KV cache"},
			{Name: "steps", Default: "16", Doc: "decode steps (mode=decode only)"},
		},
		parse: func(a *workloads.Args, c *config) {
			c.mode = a.String("mode", "prefill")
			c.seq = a.Int("seq", 128)
			c.steps = a.Int("steps", -1)
		},
		check: func(c *config) error {
			switch c.mode {
			case "prefill":
				if c.steps != -1 {
					return fmt.Errorf("steps applies to mode=decode only")
				}
				return checkSeq(c.seq, gpt2Positions)
			case "decode":
				if c.steps == -1 {
					c.steps = 16
				}
				if c.steps < 1 || c.seq+c.steps > gpt2Positions {
					return fmt.Errorf("decode needs steps >= 1 and seq + steps <= %d (seq=%d, steps=%d)", gpt2Positions, c.seq, c.steps)
				}
				return checkSeq(c.seq, gpt2Positions-1)
			}
			return fmt.Errorf("mode=%q: want prefill or decode", c.mode)
		},
		build: gpt2Small,
		spec: func(c *config) string {
			if c.mode == "decode" {
				return fmt.Sprintf("&mode=decode&seq=%d&steps=%d", c.seq, c.steps)
			}
			return fmt.Sprintf("&mode=prefill&seq=%d", c.seq)
		},
	})
}

// gpt2Small builds the graph and returns its outputs.
func gpt2Small(g *Graph, c *config) []Tensor {
	if c.mode == "prefill" {
		return []Tensor{gpt2Step(g, c.batch, c.seq, nil)}
	}
	headDim := gpt2Hidden / gpt2Heads
	cache := make([]Tensor, 2*gpt2Layers) // K and V per layer
	for i := range cache {
		cache[i] = g.Input(c.batch, gpt2Heads, c.seq, headDim)
	}
	var outs []Tensor
	for range c.steps {
		outs = append(outs, gpt2Step(g, c.batch, 1, cache))
	}
	return append(outs, cache...)
}

// gpt2Step runs the network on n tokens. With a cache (decode), each
// layer appends its K and V to cache[2l], cache[2l+1] and attends over
// them; without one (prefill) attention is causal over the n tokens.
func gpt2Step(g *Graph, batch, n int, cache []Tensor) Tensor {
	x := g.Elementwise(g.Gather(g.Input(batch, n), gpt2Hidden)) // ADD positions
	for l := range gpt2Layers {
		qkv := g.Split(g.FC(g.Elementwise(x), 3*gpt2Hidden), 3) // layer norm, c_attn
		q, k, v := heads(g, qkv[0], gpt2Heads), heads(g, qkv[1], gpt2Heads), heads(g, qkv[2], gpt2Heads)
		if cache != nil {
			k = g.ConcatAxis(2, cache[2*l], k)
			v = g.ConcatAxis(2, cache[2*l+1], v)
			cache[2*l], cache[2*l+1] = k, v
		}
		x = g.Elementwise(g.FC(attend(g, q, k, v, cache == nil), gpt2Hidden), x)
		x = g.Elementwise(mlp(g, g.Elementwise(x), gpt2FF), x)
	}
	return g.FC(g.Elementwise(x), gpt2Vocab)
}
