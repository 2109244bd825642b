#!/usr/bin/env python3
"""Export the ONNX models whose usage records membench ships (onnx/NAME).

For each model it writes OUT/NAME.onnx: torch.onnx.export (the TorchScript
exporter of Debian's python3-torch), opset 17, batch 1, static shapes,
eval mode, constant folding on; then onnx.shape_inference fills in the
value_info of every intermediate, and onnx.checker (full_check) checks
the result. It prints each file's sha256, which workloads/onnxmodels
records beside the derived records.

  resnet-50      torchvision resnet50, 1x3x224x224 float32
  mobilenet-v2   torchvision mobilenet_v2, 1x3x224x224 float32
  bert-base      a BERT-base-shaped encoder: vocabulary 30522, 12 layers,
                 hidden 768, 12 heads, FFN 3072 (GELU), 128 tokens

Weights are random (torch.manual_seed(0)): memory does not depend on them.
The files stay out of the repository; derive the records from them with

  /usr/bin/python3 scripts/onnx/export.py --out /tmp/onnx
  MEMBENCH_ONNX_DIR=/tmp/onnx go test ./workloads/onnxmodels -run TestDerived -update

Needs: apt-get install python3-torch python3-torchvision python3-onnx
"""
import argparse
import hashlib
import math
import os
import sys

import torch
import torchvision
import onnx


class SelfAttention(torch.nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads, self.head = heads, hidden // heads
        self.query = torch.nn.Linear(hidden, hidden)
        self.key = torch.nn.Linear(hidden, hidden)
        self.value = torch.nn.Linear(hidden, hidden)
        self.out = torch.nn.Linear(hidden, hidden)

    def split(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.heads, self.head).transpose(1, 2)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head)
        ctx = torch.matmul(scores.softmax(-1), v)
        return self.out(ctx.transpose(1, 2).reshape(b, s, h))


class Layer(torch.nn.Module):
    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.attention = SelfAttention(hidden, heads)
        self.norm1 = torch.nn.LayerNorm(hidden, eps=1e-12)
        self.up = torch.nn.Linear(hidden, ffn)
        self.down = torch.nn.Linear(ffn, hidden)
        self.norm2 = torch.nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, x):
        x = self.norm1(x + self.attention(x))
        return self.norm2(x + self.down(torch.nn.functional.gelu(self.up(x))))


class BertEncoder(torch.nn.Module):
    """BERT-base's shape: embeddings (word, position, token type) and
    LayerNorm, then 12 post-norm layers of self-attention and a GELU FFN."""

    def __init__(self, vocab=30522, hidden=768, layers=12, heads=12, ffn=3072, positions=512):
        super().__init__()
        self.word = torch.nn.Embedding(vocab, hidden)
        self.position = torch.nn.Embedding(positions, hidden)
        self.token_type = torch.nn.Embedding(2, hidden)
        self.norm = torch.nn.LayerNorm(hidden, eps=1e-12)
        self.layers = torch.nn.ModuleList(Layer(hidden, heads, ffn) for _ in range(layers))

    def forward(self, ids):
        pos = torch.arange(ids.shape[1]).unsqueeze(0)
        x = self.word(ids) + self.position(pos) + self.token_type(torch.zeros_like(ids))
        x = self.norm(x)
        for layer in self.layers:
            x = layer(x)
        return x


def build(name):
    if name == "resnet-50":
        return torchvision.models.resnet50(weights=None), torch.randn(1, 3, 224, 224)
    if name == "mobilenet-v2":
        return torchvision.models.mobilenet_v2(weights=None), torch.randn(1, 3, 224, 224)
    if name == "bert-base":
        return BertEncoder(), torch.randint(0, 30522, (1, 128))
    raise SystemExit("unknown model %r (want resnet-50, mobilenet-v2 or bert-base)" % name)


MODELS = ["resnet-50", "mobilenet-v2", "bert-base"]


def export(name, out):
    torch.manual_seed(0)
    model, example = build(name)
    model.eval()
    path = os.path.join(out, name + ".onnx")
    with torch.no_grad():
        torch.onnx.export(model, (example,), path, opset_version=17, do_constant_folding=True,
                          input_names=["input"], output_names=["output"])
    m = onnx.shape_inference.infer_shapes(onnx.load(path), check_type=True, strict_mode=True)
    m.producer_name += " + onnx.shape_inference %s" % onnx.__version__
    onnx.save(m, path)
    onnx.checker.check_model(path, full_check=True)
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    print("%s %s (torch %s, torchvision %s, onnx %s)" % (digest, path, torch.__version__,
                                                       torchvision.__version__, onnx.__version__))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="*", default=MODELS, help="models to export (default: all)")
    ap.add_argument("--out", required=True, help="folder for NAME.onnx")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name in args.models:
        export(name, args.out)


if __name__ == "__main__":
    sys.exit(main())
