#!/usr/bin/python3
"""Fixtures for the training-mode tests (run with Debian's /usr/bin/python3, which has torch).

    /usr/bin/python3 tests/training/make_training_fixtures.py OUT_DIR [--list]

Models with Dropout and BatchNorm, scripted or traced, saved in eval or in training mode. Writes, per
case, OUT_DIR/CASE/model.pt, OUT_DIR/CASE/case.json ({"cli_args": [...], "p": dropout probability
or null}) and OUT_DIR/CASE/eval/ and OUT_DIR/CASE/train/: the input and PyTorch's outputs with the
loaded model in eval() and in train() (meta.json as tests/ort/compare.js reads it). A traced model
keeps the mode it was traced in whatever train() says, as its export does. Dropout with p > 0 draws a
random mask: its train/ outputs are one sample, for the shape and dtype; the test checks the export's
statistics instead (dropout_stats.js). All cases in one process, generated once per version of this
file (tests/fixtures/make_fixtures.py's generate_once).
"""
import json
import os
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "fixtures"))

# name -> (class name, how it is saved: "script"/"trace", the mode it is saved in, input shape)
CASES = {
    "dropout_p0": ("DropoutZero", "script", "eval", (4, 8)),
    "dropout_p03": ("DropoutRandom", "script", "eval", (64, 64)),
    "bn2d": ("BatchNorm2d", "script", "eval", (3, 4, 5, 5)),
    "bn1d_momentum_none": ("BatchNorm1dCumulative", "script", "eval", (8, 6)),
    "bn2d_trace_train": ("BatchNorm2d", "trace", "train", (3, 4, 5, 5)),
    "conv_bn": ("ConvBn", "script", "eval", (2, 3, 9, 9)),
    "conv_bn_saved_train": ("ConvBn", "script", "train", (2, 3, 9, 9)),
    "conv_bn_trace_train": ("ConvBn", "trace", "train", (2, 3, 9, 9)),
    "mlp": ("Mlp", "script", "eval", (4, 8)),
    # Fresh models (running statistics at mean 0, var 1, as PyTorch's own test_batchnorm_training,
    # test_conv_bn, test_multiple_conv_bn have them) on inputs far from mean 0 / var 1 (FAR_INPUT):
    # normalizing with the running statistics instead of the batch's shows by several units.
    "bn2d_fresh": ("BatchNorm2dFresh", "script", "eval", (3, 4, 5, 5)),
    "bn1d_fresh_3d": ("BatchNorm1dFresh", "script", "eval", (4, 6, 7)),
    "conv_bn_fresh": ("ConvBnFresh", "script", "eval", (2, 3, 9, 9)),
    "conv_bn_fresh_trace_train": ("ConvBnFresh", "trace", "train", (2, 3, 9, 9)),
}
# Classes whose input is drawn far from the running statistics' defaults: mean about 4, std about 3.
FAR_INPUT = {"BatchNorm2dFresh", "BatchNorm1dFresh", "ConvBnFresh"}


def models():
    import torch
    import torch.nn as nn

    def randomized(bn):
        # Running statistics and affine parameters away from their defaults, so that using the running
        # statistics instead of the batch's (or the other way round) shows.
        with torch.no_grad():
            bn.running_mean.uniform_(-1, 1)
            bn.running_var.uniform_(0.5, 2.0)
            if bn.weight is not None:
                bn.weight.uniform_(0.5, 1.5)
                bn.bias.uniform_(-0.5, 0.5)
        return bn

    class DropoutZero(nn.Module):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(0.0)

        def forward(self, x):
            return self.drop(x * 2.0) + 1.0

    class DropoutRandom(nn.Module):
        p = 0.3

        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(0.3)

        def forward(self, x):
            return self.drop(x)

    class BatchNorm2d(nn.Module):
        def __init__(self):
            super().__init__()
            self.bn = randomized(nn.BatchNorm2d(4, eps=1e-3, momentum=0.2))

        def forward(self, x):
            return self.bn(x)

    class BatchNorm1dCumulative(nn.Module):
        # momentum=None: the running statistics are a cumulative average, weighted by
        # 1 / num_batches_tracked, which forward() reads after counting the batch.
        def __init__(self):
            super().__init__()
            self.bn = randomized(nn.BatchNorm1d(6, momentum=None))

        def forward(self, x):
            return torch.relu(self.bn(x))

    class ConvBn(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 8, 3)
            self.bn1 = randomized(nn.BatchNorm2d(8))
            self.conv2 = nn.Conv2d(8, 4, 1, bias=False)
            self.bn2 = randomized(nn.BatchNorm2d(4))

        def forward(self, x):
            return self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x)))))

    class BatchNorm2dFresh(nn.Module):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm2d(4)

        def forward(self, x):
            return self.bn(x)

    class BatchNorm1dFresh(nn.Module):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm1d(6, affine=False)

        def forward(self, x):
            return self.bn(x) * 2.0

    class ConvBnFresh(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 8, 3)
            self.bn1 = nn.BatchNorm2d(8)
            self.conv2 = nn.Conv2d(8, 4, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(4)

        def forward(self, x):
            return self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x)))))

    class Mlp(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(8, 16)
            self.fc2 = nn.Linear(16, 3)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x)))

    return dict(locals())


def write_mode_dir(d, pt, x, mode):
    """d/meta.json with x and the outputs of the saved model loaded fresh and put in `mode`."""
    import torch
    import make_fixtures as mf
    os.makedirs(d)
    loaded = torch.jit.load(pt)
    loaded.train(mode == "train")
    with torch.no_grad():
        outs = mf.flatten_outputs(loaded(x))
    meta = {
        "kind": "model",
        "inputs": [mf.write_tensor(os.path.join(d, "input_0.bin"), x)],
        "outputs": [mf.write_tensor(os.path.join(d, f"expected_{k}.bin"), t) for k, t in enumerate(outs)],
        "rtol": 1e-4,
    }
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)


def write_case(out_dir, name, classes):
    import torch
    import make_fixtures as mf
    class_name, method, saved_mode, shape = CASES[name]
    torch.manual_seed(zlib.crc32(name.encode()))
    module = classes[class_name]()
    module.train(saved_mode == "train")
    if class_name == "DropoutRandom":
        x = torch.ones(*shape)
    elif class_name in FAR_INPUT:
        x = torch.randn(*shape) * 3.0 + 4.0
    else:
        x = torch.randn(*shape) * 2.0 + 0.5
    target = os.path.join(out_dir, name)
    os.makedirs(target)
    if method == "script":
        ts = torch.jit.script(module)
    else:
        with torch.no_grad():
            ts = torch.jit.trace(module, (x,), check_trace=False)
    pt = os.path.join(target, "model.pt")
    ts.save(pt)
    for mode in ("eval", "train"):
        write_mode_dir(os.path.join(target, mode), pt, x, mode)
    with open(os.path.join(target, "case.json"), "w") as f:
        json.dump({"cli_args": ["--input", mf.cli_spec(x)], "p": getattr(module, "p", None)}, f, indent=1)


def main():
    if sys.argv[1:] == ["--list"]:
        print("\n".join(CASES))
        return
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    out_dir = sys.argv[1]
    import make_fixtures as mf

    def generate(digest):
        import torch
        torch.set_num_threads(1)
        classes = models()
        for name in CASES:
            write_case(out_dir, name, classes)

    mf.generate_once(out_dir, __file__, generate)


if __name__ == "__main__":
    main()
