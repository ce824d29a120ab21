#!/usr/bin/python3
"""Fixtures for the dynamic-axes tests (run with Debian's /usr/bin/python3, which has torch).

    /usr/bin/python3 tests/dynamic/make_dynamic_fixtures.py OUT_DIR CASE

Writes OUT_DIR/CASE/model.pt (traced or scripted at the example size), OUT_DIR/CASE/export.json
({"cli_args": [...]}: --input specs at the example size and --dynamic-axes), and one directory per
other size, OUT_DIR/CASE/size_K/, with inputs and PyTorch's outputs at that size (meta.json as
tests/ort/compare.js reads it). The exported model must match PyTorch at every size_K.
Regenerated only when this file changes (make_fixtures.generate_once).
"""
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "fixtures"))


def cases():
    import torch
    import torch.nn as nn

    torch.manual_seed(0)

    class SmallCnn(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                                          nn.MaxPool2d(2), nn.Conv2d(8, 16, 3), nn.ReLU(),
                                          nn.AdaptiveAvgPool2d((1, 1)))
            self.fc = nn.Linear(16, 5)

        def forward(self, x):
            return self.fc(torch.flatten(self.features(x), 1))

    class SizePatterns(nn.Module):
        # x.view(x.size(0), -1), x.new_zeros(x.shape), torch.arange(x.size(1))
        def forward(self, x):
            flat = x.view(x.size(0), -1)
            z = x.new_zeros(x.shape) + 1.0
            pos = torch.arange(x.size(1)).to(x.dtype)
            return flat * 2.0, z + pos.view(1, -1, 1)

    class Bert(nn.Module):
        def __init__(self, vocab=100, d=32, heads=4, layers=2, max_len=64):
            super().__init__()
            self.tok = nn.Embedding(vocab, d)
            self.pos = nn.Embedding(max_len, d)
            layer = nn.TransformerEncoderLayer(d, heads, dim_feedforward=64, dropout=0.0, batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, layers)
            self.norm = nn.LayerNorm(d)

        def forward(self, ids):
            positions = torch.arange(ids.size(1), device=ids.device).unsqueeze(0)
            h = self.tok(ids) + self.pos(positions)
            return self.norm(self.encoder(h))

    class Gpt(nn.Module):
        def __init__(self, vocab=100, d=32, heads=4, layers=2, max_len=64):
            super().__init__()
            self.tok = nn.Embedding(vocab, d)
            self.pos = nn.Embedding(max_len, d)
            self.blocks = nn.ModuleList([Block(d, heads) for _ in range(layers)])
            self.ln = nn.LayerNorm(d)
            self.head = nn.Linear(d, vocab, bias=False)

        def forward(self, ids):
            t = ids.size(1)
            positions = torch.arange(t, device=ids.device).unsqueeze(0)
            h = self.tok(ids) + self.pos(positions)
            mask = torch.triu(torch.ones(t, t, device=ids.device, dtype=torch.bool), diagonal=1)
            for block in self.blocks:
                h = block(h, mask)
            return self.head(self.ln(h))

    class Block(nn.Module):
        def __init__(self, d, heads):
            super().__init__()
            self.heads = heads
            self.ln1 = nn.LayerNorm(d)
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)
            self.ln2 = nn.LayerNorm(d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x, mask):
            b, t, c = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
            q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
            k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
            v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) / math.sqrt(c // self.heads)
            att = att.masked_fill(mask, float("-inf")).softmax(dim=-1)
            y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
            x = x + self.proj(y)
            return x + self.mlp(self.ln2(x))

    class Lstm(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True)
            self.fc = nn.Linear(16, 4)

        def forward(self, x):
            y, _ = self.lstm(x)
            return self.fc(y)

    # Size constraints: the second run (every dynamic axis one larger) fails on these; the exporter
    # must find sizes the model runs at (x2 here) instead of giving up.
    class EvenSizes(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(12, 12, 3, padding=1)

        def forward(self, x):
            return nn.functional.pixel_shuffle(self.conv(nn.functional.pixel_unshuffle(x, 2)), 2)

    class Halves(nn.Module):
        def forward(self, x):
            a, b = x.chunk(2, dim=1)
            return a * b + x[:, : a.shape[1]]

    class FixedView(nn.Module):
        def forward(self, x):
            return x.view(2, 3, 4).sum(1)

    # A returned list whose length follows a dynamic axis: one ONNX sequence output (opset 11+).
    class SplitReturn(nn.Module):
        def forward(self, x):
            return x.split(2, dim=1)

    # embedding_bag's offsets must start at 0 (made-up ones do not): the example values given with
    # --example-inputs feed the first run, and resized (a prefix, or the last entry repeated) the second.
    class BagSums(nn.Module):
        def __init__(self):
            super().__init__()
            self.bag = nn.EmbeddingBag(10, 3, mode="sum")

        def forward(self, ids, offsets):
            return self.bag(ids, offsets)

    # Sizes that follow the data, which the example runs may meet only once: the first rows with a
    # score above -10, at most two (keep[:2] after nonzero: 2 in both runs whenever both had two), and
    # a resize to a size read from the data inside a scripted helper (Keypoint R-CNN's heatmaps).
    class TruncatedSelection(nn.Module):
        def forward(self, x):
            keep = (x[:, 0] > -10).nonzero()[:, 0][:2]  # every row of the exporter's randn inputs
            sel = x[keep]
            return sel.sum(1, keepdim=True) + torch.zeros(sel.size(0), 1)

    @torch.jit._script_if_tracing
    def resize_to_data(x, size):
        return nn.functional.interpolate(x, size=(int(size[0]), int(size[1])), mode="bilinear", align_corners=False)

    class DataSizedResize(nn.Module):
        def forward(self, x):
            size = x[0, 0, 0, :2].abs().ceil().clamp(1, 6).to(torch.int64)
            y = resize_to_data(x, size)
            return y.reshape(y.size(0), -1) * y.size(3)

    # Sizes padded up to a multiple of 8, then cut into 8x8 blocks (a detector's padding to a multiple
    # of 32 and its anchors per cell): at the example's 17x17 and the second run's 18x18 the padded
    # size is 24x24 both times, so only the third example run (34x51) tells the block counts dynamic.
    class PaddedBlocks(nn.Module):
        def forward(self, x):
            n, c, h, w = x.shape
            y = nn.functional.pad(x, (0, (8 - w % 8) % 8, 0, (8 - h % 8) % 8))
            hb, wb = y.shape[2] // 8, y.shape[3] // 8
            blocks = y.reshape(n, c, hb, 8, wb, 8).permute(0, 2, 4, 1, 3, 5).reshape(n, hb * wb, c * 64)
            return blocks.sum(2) + torch.arange(hb * wb).to(x.dtype)

    def positives(n, rows):
        x = torch.randn(n, 3)
        x[:, 0] = -20.0
        x[rows, 0] = torch.randn(len(rows))
        return x

    def with_corner(n, a, b):
        x = torch.randn(n, 2, 4, 4)
        x[0, 0, 0, 0], x[0, 0, 0, 1] = a, b
        return x

    ids = lambda b, t: torch.randint(0, 100, (b, t))
    # name -> (module, method, example inputs, --dynamic-axes, [other-size inputs...], rtol)
    return {
        "cnn_batch": (SmallCnn(), "trace", [torch.randn(1, 3, 16, 16)], ["x=0:batch"],
                      [[torch.randn(2, 3, 16, 16)], [torch.randn(5, 3, 16, 16)]], 1e-4),
        "size_patterns": (SizePatterns(), "trace", [torch.randn(2, 5, 3)], ["x=0:batch,1:seq"],
                          [[torch.randn(4, 9, 3)], [torch.randn(1, 2, 3)]], 1e-4),
        "size_patterns_script": (SizePatterns(), "script", [torch.randn(2, 5, 3)], ["x=0:batch,1:seq"],
                                 [[torch.randn(4, 9, 3)], [torch.randn(1, 2, 3)]], 1e-4),
        "bert_encoder": (Bert(), "trace", [ids(1, 16)], ["ids=0:batch,1:seq"],
                         [[ids(4, 9)], [ids(2, 23)]], 2e-3),
        "gpt_decoder": (Gpt(), "trace", [ids(1, 16)], ["ids=0:batch,1:seq"],
                        [[ids(4, 9)], [ids(2, 23)]], 2e-3),
        "even_sizes": (EvenSizes(), "trace", [torch.randn(1, 3, 8, 8)], ["x=0:batch,2:h,3:w"],
                       [[torch.randn(2, 3, 12, 12)], [torch.randn(3, 3, 6, 10)]], 1e-4),
        "halves_script": (Halves(), "script", [torch.randn(2, 6, 3)], ["x=0:batch,1:pairs"],
                          [[torch.randn(3, 10, 3)], [torch.randn(1, 2, 3)]], 1e-5),
        "fixed_view": (FixedView(), "trace", [torch.randn(2, 12)], ["x=0:batch"], [], 1e-5),
        "embedding_bag_examples": (BagSums(), "trace", [torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 3, 5])],
                                   ["ids=0:n", "offsets=0:bags"],
                                   [[torch.tensor([7, 1, 1, 0, 2]), torch.tensor([0, 1])],
                                    [torch.tensor([3] * 12), torch.tensor([0, 2, 2, 8])]], 1e-5),
        "split_return_sequence": (SplitReturn(), "script", [torch.randn(3, 5)], ["x=1:n"], [], 1e-5),
        "truncated_selection": (TruncatedSelection(), "trace", [positives(8, [0, 2, 5])], ["x=0:n"],
                                [[positives(6, [3])], [positives(12, [1, 4, 7, 9])], [positives(5, [])]], 1e-5),
        "data_sized_resize": (DataSizedResize(), "trace", [with_corner(1, 2.5, 3.5)], ["x=0:batch"],
                              [[with_corner(2, 5.5, 1.2)], [with_corner(1, 0.3, 4.0)]], 1e-4),
        "padded_blocks": (PaddedBlocks(), "trace", [torch.randn(1, 2, 17, 17)], ["x=0:batch,2:h,3:w"],
                          [[torch.randn(2, 2, 30, 10)], [torch.randn(1, 2, 8, 41)]], 1e-4),
        "lstm_seq": (Lstm(), "trace", [torch.randn(1, 16, 8)], ["x=0:batch,1:seq"],
                     [[torch.randn(3, 9, 8)], [torch.randn(2, 30, 8)]], 1e-4),
    }


# Cases exported with their example values (--example-inputs) instead of made-up ones.
GIVEN_EXAMPLES = {"embedding_bag_examples"}


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    out_dir, name = sys.argv[1], sys.argv[2]
    import make_fixtures as mf

    target = os.path.join(out_dir, name)
    mf.generate_once(target, __file__, lambda _digest: generate(target, name), fresh=True)


def generate(target, name):
    """Writes case `name` into the (empty) directory target."""
    import torch
    import make_fixtures as mf

    torch.set_num_threads(1)
    all_cases = cases()
    if name not in all_cases:
        raise SystemExit(f"unknown case {name}; known: {', '.join(all_cases)}")
    module, method, example, axes, others, rtol = all_cases[name]
    module.eval()
    # Traced with autograd on: under no_grad, eval-mode transformer layers trace to fused fast-path ops.
    ts = torch.jit.script(module) if method == "script" else torch.jit.trace(module, tuple(example), check_trace=False)
    pt = os.path.join(target, "model.pt")
    ts.save(pt)
    for k, inputs in enumerate(others):
        d = os.path.join(target, f"size_{k}")
        os.makedirs(d)
        meta = mf.outputs_meta(pt, inputs, rtol, d, method)
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
    args = []
    for t in example:
        args += ["--input", mf.cli_spec(t)]
    for a in axes:
        args += ["--dynamic-axes", a]
    if name in GIVEN_EXAMPLES:
        import numpy
        examples = os.path.join(target, "examples")
        os.makedirs(examples)
        for k, t in enumerate(example):
            numpy.save(os.path.join(examples, f"input_{k}.npy"), t.numpy())
    # The example folder by its name in the fixture: the fixture cache is shared by every checkout.
    with open(os.path.join(target, "export.json"), "w") as f:
        json.dump({"cli_args": args, "sizes": len(others),
                   "example_inputs": "examples" if name in GIVEN_EXAMPLES else None}, f, indent=1)


if __name__ == "__main__":
    main()
