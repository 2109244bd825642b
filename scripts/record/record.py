#!/usr/bin/env python3
"""Record real PyTorch workloads for membench.

Given a model (a torchvision name such as resnet50, the name `transformer-encoder`,
or MODULE:CALLABLE returning (nn.Module, example input)), it writes into --out:

  NAME.infer.trace     one inference pass as a membench alloc/free trace
  NAME.train.trace     one training step (forward, backward, SGD step) likewise
  NAME.graph.json      the static graph (torch.fx + shape propagation): every
                       intermediate tensor, its bytes and its first and last
                       use in topological order, as membench JSON with labels
                       (models that symbolic_trace cannot follow are traced
                       with make_fx, at the level of aten ops)

Eager traces come from the best source the build has: with CUDA,
torch.cuda.memory._record_memory_history and _dump_snapshot (a pickle that
membench reads directly); on CPU with Kineto, torch.profiler's Chrome trace
with profile_memory=True (NAME.KIND.chrome.json, read directly too);
otherwise (or with --memrec) the CPU allocator's own calls. c10's CPU
allocator takes tensor memory with posix_memalign and returns it with free,
so the recorder builds memrec.c (beside this file) with the system's C
compiler, re-runs itself with it in LD_PRELOAD, and logs those calls between
the start and the end of the recorded step, on one thread. (Debian's torch
1.13 has no Kineto, so torch.profiler exports no [memory] events there.)

Every output starts with its provenance: torch and torchvision versions, model,
batch, dtype, the command and the date. Weights are random: memory does not
depend on them.

  python3 scripts/record/record.py resnet50 --out /tmp/rec
  python3 scripts/record/record.py mypkg.models:build --out /tmp/rec --batch 4
"""
import argparse
import ctypes
import datetime
import importlib
import json
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LIB_ENV = "MEMREC_LIB"

# Input sizes of the models that do not take 224x224 images.
IMAGE_SIZE = {"inception_v3": 299}


def build_model(spec, batch, dtype):
    import torch
    import torchvision

    if ":" in spec:
        mod, fn = spec.split(":", 1)
        model, example = getattr(importlib.import_module(mod), fn)()
        return model, example
    if spec == "transformer-encoder":
        # BERT-base shape: 12 layers, d_model 768, 12 heads, FFN 3072, seq 128.
        layer = torch.nn.TransformerEncoderLayer(768, 12, 3072, dropout=0.1, batch_first=True)
        model = torch.nn.TransformerEncoder(layer, 12, enable_nested_tensor=False)
        return model.to(dtype), torch.randn(batch, 128, 768, dtype=dtype)
    ctor = getattr(torchvision.models, spec)
    kwargs = {"weights": None}
    if spec == "inception_v3":
        kwargs.update(aux_logits=False, init_weights=False)
    model = ctor(**kwargs)
    size = IMAGE_SIZE.get(spec, 224)
    return model.to(dtype), torch.randn(batch, 3, size, size, dtype=dtype)


def provenance(args, what):
    import torch
    import torchvision

    return {
        "what": what,
        "model": args.model,
        "batch": args.batch,
        "dtype": args.dtype,
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "command": "python3 scripts/record/record.py " + " ".join(shlex.quote(a) for a in sys.argv[1:]),
        "date": datetime.date.today().isoformat(),
    }


def step(model, example, train):
    import torch

    if train:
        model.train()
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        opt.zero_grad(set_to_none=True)
        out = model(example)
        loss = out.float().pow(2).mean()
        loss.backward()
        opt.step()
        del out, loss, opt
    else:
        model.eval()
        with torch.no_grad():
            out = model(example)
        del out


def log_to_trace(log_path, out_path, prov):
    """Turns memrec's log (a ADDR BYTES / f ADDR) into a membench trace."""
    live, next_id, lines = {}, 0, []
    with open(log_path) as f:
        for raw in f:
            parts = raw.split()
            if not parts:
                continue
            addr = int(parts[1])
            if parts[0] == "a":
                live[addr] = next_id
                lines.append("a,%d,%s" % (next_id, parts[2]))
                next_id += 1
            elif addr in live:
                lines.append("f,%d," % live.pop(addr))
    with open(out_path, "w") as f:
        for k, v in prov.items():
            f.write("# %s: %s\n" % (k, v))
        f.write("# tensors still allocated at the end of the step: %d\n" % len(live))
        f.write("\n".join(lines) + "\n")
    return next_id


def record_eager_cpu(args, model, example, name, train):
    import torch

    torch.set_num_threads(1)
    lib = ctypes.CDLL(os.environ[LIB_ENV])
    lib.memrec_start.argtypes = [ctypes.c_char_p]
    step(model, example, train)  # warm up: lazy initialisation, first-call caches
    with tempfile.NamedTemporaryFile(suffix=".log", delete=False) as tmp:
        log = tmp.name
    if lib.memrec_start(log.encode()) != 0:
        sys.exit("memrec: cannot open " + log)
    step(model, example, train)
    lib.memrec_stop()
    kind = "train" if train else "infer"
    out = os.path.join(args.out, "%s.%s.trace" % (name, kind))
    n = log_to_trace(log, out, provenance(args, "eager %s, CPU allocator calls (memrec)" % kind))
    os.unlink(log)
    print("%s: %d allocations" % (out, n))


def record_eager_cuda(args, model, example, name, train):
    import torch

    model, example = model.cuda(), example.cuda()
    step(model, example, train)
    torch.cuda.memory._record_memory_history(True)
    step(model, example, train)
    kind = "train" if train else "infer"
    out = os.path.join(args.out, "%s.%s.pickle" % (name, kind))
    torch.cuda.memory._dump_snapshot(out)
    torch.cuda.memory._record_memory_history(False)
    with open(out + ".provenance.json", "w") as f:
        json.dump(provenance(args, "eager %s, CUDA snapshot" % kind), f, indent=1)
    print(out)


def record_profiler(args, model, example, name, train):
    """One step under torch.profiler with profile_memory=True: its Chrome
    trace holds a [memory] event per allocation and free, which membench
    reads directly (needs a build with Kineto)."""
    import torch

    step(model, example, train)  # warm up, as the other recorders do
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True) as prof:
        step(model, example, train)
    kind = "train" if train else "infer"
    out = os.path.join(args.out, "%s.%s.chrome.json" % (name, kind))
    prof.export_chrome_trace(out)
    with open(out + ".provenance.json", "w") as f:
        json.dump(provenance(args, "eager %s, torch.profiler Chrome trace" % kind), f, indent=1)
    print(out)


def kineto():
    import torch

    return getattr(torch.autograd, "kineto_available", lambda: False)()


def record_graph(args, model, example, name):
    import torch
    import torch.fx
    from torch.fx.passes.shape_prop import ShapeProp

    model.eval()
    how = "torch.fx symbolic_trace + ShapeProp"
    try:
        gm = torch.fx.symbolic_trace(model)
    except Exception as e:  # data-dependent Python (ViT's `n, c, h, w = x.shape`)
        # make_fx traces the aten ops of one run into an fx graph instead.
        from torch.fx.experimental.proxy_tensor import make_fx

        print("symbolic_trace failed (%s): using make_fx" % type(e).__name__, file=sys.stderr)
        # Grad mode stays on: under no_grad nn.TransformerEncoder takes its
        # fused fast path, one opaque op per layer.
        gm = make_fx(model)(example)
        how = "torch.fx make_fx (aten ops) + ShapeProp"

    def tensors(v):
        if isinstance(v, torch.Tensor):
            return [v]
        if isinstance(v, (list, tuple)):
            return [t for x in v for t in tensors(x)]
        if isinstance(v, dict):
            return [t for x in v.values() for t in tensors(x)]
        return []

    nodes = list(gm.graph.nodes)
    index = {n: i for i, n in enumerate(nodes)}
    end = len(nodes) - 1
    bufs = []  # [label, bytes, first, last]
    of = {}  # node -> buffer indices of its tensors (None for a parameter)

    class Prop(ShapeProp):
        """Shape propagation that also tells a new tensor from a view or an
        in-place result: an output whose storage is an input's aliases it."""

        def run_node(self, n):
            out = super().run_node(n)
            if n.op == "get_attr":
                of[n] = [None] * len(tensors(out))
                return out
            ins = {}
            for a in n.all_input_nodes:
                for t, b in zip(tensors(self.env.get(a)), of.get(a, [])):
                    ins[t.storage().data_ptr()] = b
            mine = []
            for k, t in enumerate(tensors(out)):
                ptr = t.storage().data_ptr()
                if ptr in ins:
                    mine.append(ins[ptr])  # a view or in-place: same memory
                    continue
                first = 0 if n.op == "placeholder" else index[n]
                label = n.name if k == 0 else "%s.%d" % (n.name, k)
                bufs.append([label, t.storage().size() * t.element_size(), first, first])
                mine.append(len(bufs) - 1)
            of[n] = mine
            return out

    with torch.no_grad():
        Prop(gm).propagate(example)
    for n in nodes:
        for b in of.get(n, []):
            if b is None:
                continue
            for u in n.users:
                bufs[b][3] = max(bufs[b][3], end if u.op == "output" else index[u])
    # A view's users extend its storage's life: walk views too.
    for n in nodes:
        for a in n.all_input_nodes:
            for b in of.get(a, []):
                if b is not None:
                    bufs[b][3] = max(bufs[b][3], end if n.op == "output" else index[n])
    out = os.path.join(args.out, "%s.graph.json" % name)
    with open(out, "w") as f:
        f.write("{\n  \"name\": %s,\n" % json.dumps(name + " (torch.fx)"))
        f.write("  \"provenance\": %s,\n" % json.dumps(provenance(args, "static graph, " + how)))
        f.write("  \"buffers\": [")
        f.write(",".join("\n    " + json.dumps({"id": i, "label": b[0], "size": b[1], "first": b[2], "last": b[3]}) for i, b in enumerate(bufs)))
        f.write("\n  ]\n}\n")
    print("%s: %d tensors" % (out, len(bufs)))


def ensure_preload():
    """Builds memrec.so and re-executes this script with it preloaded."""
    if os.environ.get(LIB_ENV):
        return
    lib = os.path.join(tempfile.gettempdir(), "memrec-%d.so" % os.getuid())
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", lib, os.path.join(HERE, "memrec.c"), "-ldl"], check=True)
    env = dict(os.environ, LD_PRELOAD=lib, **{LIB_ENV: lib})
    os.execvpe(sys.executable, [sys.executable] + sys.argv, env)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", help="torchvision model name, transformer-encoder, or MODULE:CALLABLE")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--name", help="output base name (default: the model)")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--train-batch", type=int, default=2, help="batch of the training step (BatchNorm needs 2)")
    p.add_argument("--dtype", default="float32", choices=["float32", "float16", "bfloat16"])
    p.add_argument("--what", default="infer,train,graph", help="comma list of infer, train, graph")
    p.add_argument("--profiler", action="store_true", help="also write a torch.profiler Chrome trace of inference (needs Kineto)")
    p.add_argument("--memrec", action="store_true", help="on CPU, record the allocator's calls even where Kineto is present")
    args = p.parse_args()
    import torch

    cuda = torch.cuda.is_available()
    # The eager recorder: CUDA snapshots where CUDA is present, else
    # torch.profiler where the build has Kineto, else the CPU allocator's
    # own calls through memrec.
    profiler = not cuda and kineto() and not args.memrec
    if not cuda and not profiler:
        ensure_preload()
    torch.manual_seed(0)
    os.makedirs(args.out, exist_ok=True)
    name = args.name or args.model.replace(":", "-").replace("_", "-")
    dtype = getattr(torch, args.dtype)
    what = set(args.what.split(","))
    for kind in ("infer", "train"):
        if kind not in what:
            continue
        batch = args.batch if kind == "infer" else args.train_batch
        model, example = build_model(args.model, batch, dtype)
        saved, args.batch = args.batch, batch
        if cuda:
            record_eager_cuda(args, model, example, name, kind == "train")
        elif profiler:
            record_profiler(args, model, example, name, kind == "train")
        else:
            record_eager_cpu(args, model, example, name, kind == "train")
        args.batch = saved
        del model, example
    if "graph" in what:
        model, example = build_model(args.model, args.batch, dtype)
        record_graph(args, model, example, name)
    if args.profiler and not profiler:
        if not kineto():
            sys.exit("--profiler: this torch build has no Kineto, so torch.profiler records no [memory] events")
        model, example = build_model(args.model, args.batch, dtype)
        record_profiler(args, model, example, name, False)


if __name__ == "__main__":
    main()
