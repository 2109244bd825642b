package zoo

import (
	"fmt"

	"membench/workloads"
)

// BERT-base encoder: Devlin et al., "BERT: Pre-training of Deep
// Bidirectional Transformers for Language Understanding", NAACL 2019,
// Section 3 (L = 12 layers, H = 768, A = 12 heads, feed-forward 4H = 3072,
// 512 positions), post-layer-norm blocks of Vaswani et al. 2017. Graph:
// GATHER word and segment embeddings, ADD them, ADD the (constant)
// position embeddings, layer norm; per layer: FULLY_CONNECTED Q, K, V,
// heads split (RESHAPE, TRANSPOSE), BATCH_MATMUL Q.K^T, MUL scale, SOFTMAX,
// BATCH_MATMUL by V, heads merged (TRANSPOSE, RESHAPE), FULLY_CONNECTED,
// ADD residual, layer norm, FULLY_CONNECTED 3072, GELU, FULLY_CONNECTED
// 768, ADD, layer norm. Inputs: token and segment ids of unpadded
// sequences (no attention mask). Output: the last hidden states; the
// pooler belongs to downstream heads.
//
// Against a BERT-base-shaped torch.nn.TransformerEncoder as recorded
// (recorded/transformer-encoder/graph, seq 128, traced at the level of aten
// ops): the same LB_load, 3,538,944 B (the attention scores of 12 heads with
// the feed-forward's 3072-wide activation), 280 tensors here against 253
// there: here the embeddings (GATHER, ADD, layer norm) are part of the
// graph and every TFLite op output is a tensor, where the recorder merges a
// PyTorch view into the storage it shares.

const (
	bertLayers, bertHidden, bertHeads, bertFF, bertPositions = 12, 768, 12, 3072, 512
)

func init() {
	register(&model{
		name:  "zoo/bert-base",
		doc:   "BERT-base encoder (Devlin et al. 2019): 12 layers, 768 hidden, 12 heads, TFLite ops",
		extra: []workloads.ParamDoc{{Name: "seq", Default: "128", Doc: "sequence length (at most 512)"}},
		parse: func(a *workloads.Args, c *config) { c.seq = a.Int("seq", 128) },
		check: func(c *config) error { return checkSeq(c.seq, bertPositions) },
		build: func(g *Graph, c *config) []Tensor { return []Tensor{bertBase(g, c.batch, c.seq)} },
		spec:  func(c *config) string { return fmt.Sprintf("&seq=%d", c.seq) },
	})
}

func bertBase(g *Graph, batch, seq int) Tensor {
	words := g.Gather(g.Input(batch, seq), bertHidden)
	segments := g.Gather(g.Input(batch, seq), bertHidden)
	x := g.Elementwise(g.Elementwise(words, segments)) // ADD, ADD positions
	x = g.Elementwise(x)                               // layer norm
	for range bertLayers {
		q := heads(g, g.FC(x, bertHidden), bertHeads)
		k := heads(g, g.FC(x, bertHidden), bertHeads)
		v := heads(g, g.FC(x, bertHidden), bertHeads)
		a := g.FC(attend(g, q, k, v, false), bertHidden)
		x = g.Elementwise(g.Elementwise(a, x)) // ADD, layer norm
		x = g.Elementwise(g.Elementwise(mlp(g, x, bertFF), x))
	}
	return x
}
