package zoo

// Transformer building blocks shared by bert-base and gpt2-small, at
// TFLite granularity: FULLY_CONNECTED (bias fused), RESHAPE and TRANSPOSE
// to split heads, BATCH_MATMUL, MUL by 1/sqrt(head size), ADD of a
// constant mask, SOFTMAX, GELU, ADD. Layer normalisation counts as one op
// (TFLite lowers it to MEAN/SUB/MUL/RSQRT ops on the same [batch, seq,
// hidden] shape; one tensor stands for them).

// heads reshapes [b, s, h*d] to [b, s, h, d] and transposes to [b, h, s, d].
func heads(g *Graph, x Tensor, h int) Tensor {
	s := g.Shape(x)
	b, n, hd := s[0], s[1], s[2]
	return g.Transpose(g.Reshape(x, b, n, h, hd/h), 0, 2, 1, 3)
}

// merge undoes heads: [b, h, s, d] to [b, s, h*d].
func merge(g *Graph, x Tensor) Tensor {
	s := g.Shape(x)
	b, h, n, d := s[0], s[1], s[2], s[3]
	return g.Reshape(g.Transpose(x, 0, 2, 1, 3), b, n, h*d)
}

// attend is scaled dot-product attention over head-split q, k, v; with
// masked, a constant causal mask is added before the softmax.
func attend(g *Graph, q, k, v Tensor, masked bool) Tensor {
	p := g.Elementwise(g.BatchMatMul(q, k, true)) // MUL by 1/sqrt(d)
	if masked {
		p = g.Elementwise(p) // ADD mask
	}
	return merge(g, g.BatchMatMul(g.Elementwise(p), v, false)) // SOFTMAX
}

// mlp is FULLY_CONNECTED to ff, GELU, FULLY_CONNECTED back.
func mlp(g *Graph, x Tensor, ff int) Tensor {
	_, _, d := g.nsd(x)
	return g.FC(g.Elementwise(g.FC(x, ff)), d)
}

// nsd returns the dimensions of a [batch, seq, hidden] tensor.
func (g *Graph) nsd(x Tensor) (n, s, d int) {
	sh := g.tensors[x].shape
	return sh[0], sh[1], sh[2]
}
