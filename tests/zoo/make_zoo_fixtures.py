#!/usr/bin/python3
"""Model-zoo fixtures: torchvision 0.14 classification and segmentation models with random weights
(run with Debian's /usr/bin/python3, which has torch + torchvision).

    /usr/bin/python3 tests/zoo/make_zoo_fixtures.py OUT_DIR NAME [--full]
    /usr/bin/python3 tests/zoo/make_zoo_fixtures.py --list [--ci]
    /usr/bin/python3 tests/zoo/make_zoo_fixtures.py OUT_DIR --all-ci     the CI list, one process

Writes OUT_DIR/NAME/ (OUT_DIR/NAME_full/ with --full): model.pt (traced, eval mode, weights=None,
BatchNorm stats randomized as tests/fixtures/make_fixtures.py does), input_0.bin, expected_K.bin and
meta.json as tests/ort/compare.js reads it ("cli_inputs" gives the --input specs). The CI size is a
small resolution each model accepts (vit/swin/maxvit at a reduced image_size where the model takes
one); --full uses 224 or the model's native size. Generated once per version of this file and of
torch, into the fixture cache (make_fixtures.generate_once).
Environment: T2O_FIXTURE_THREADS (torch threads, default 1).
"""
import json
import os
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "fixtures"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "examples", "tiny_cnn"))

RTOL = 2e-3

# name -> (CI resolution, full resolution, constructor kwargs, CI kwargs (only at the CI size))
# Resolutions are the smallest comfortable size a model accepts in CI and its native size in full.
MODELS = {}


def _add(names, ci, full=224, kwargs=None, ci_kwargs=None):
    for n in names:
        MODELS[n] = (ci, full, dict(kwargs or {}), dict(ci_kwargs or {}))


_add(["alexnet"], 64)
_add(["vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn"], 32)
_add(["resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "resnext50_32x4d",
      "resnext101_32x8d", "resnext101_64x4d", "wide_resnet50_2", "wide_resnet101_2"], 64)
_add(["mobilenet_v2", "mobilenet_v3_large", "mobilenet_v3_small"], 64)
_add(["efficientnet_b0"], 64, 224)
_add(["efficientnet_b1"], 64, 240)
_add(["efficientnet_b2"], 64, 288)
_add(["efficientnet_b3"], 64, 300)
_add(["efficientnet_b4"], 64, 380)
_add(["efficientnet_b5"], 64, 456)
_add(["efficientnet_b6"], 64, 528)
_add(["efficientnet_b7"], 64, 600)
_add(["efficientnet_v2_s"], 64, 384)
_add(["efficientnet_v2_m"], 64, 480)
_add(["efficientnet_v2_l"], 64, 480)
_add(["densenet121", "densenet161", "densenet169", "densenet201"], 64)
_add(["squeezenet1_0", "squeezenet1_1"], 64)
_add(["shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0"], 64)
_add(["mnasnet0_5", "mnasnet0_75", "mnasnet1_0", "mnasnet1_3"], 64)
# Auxiliary classifiers only run in training mode; leave them out. init_weights avoids the warning.
_add(["googlenet"], 64, 224, {"aux_logits": False, "init_weights": True})
_add(["inception_v3"], 80, 299, {"aux_logits": False, "init_weights": True})
_add(["regnet_x_400mf", "regnet_x_800mf", "regnet_x_1_6gf", "regnet_x_3_2gf", "regnet_x_8gf",
      "regnet_x_16gf", "regnet_x_32gf", "regnet_y_400mf", "regnet_y_800mf", "regnet_y_1_6gf",
      "regnet_y_3_2gf", "regnet_y_8gf", "regnet_y_16gf", "regnet_y_32gf", "regnet_y_128gf"], 64)
_add(["convnext_tiny", "convnext_small", "convnext_base", "convnext_large"], 64)
# ViT has a fixed image_size (position embeddings): a smaller one in CI.
_add(["vit_b_16", "vit_l_16"], 64, 224, None, {"image_size": 64})
_add(["vit_b_32", "vit_l_32"], 64, 224, None, {"image_size": 64})
_add(["vit_h_14"], 56, 224, None, {"image_size": 56})
# Swin pads to its window size, so any multiple of 32 works.
_add(["swin_t", "swin_s", "swin_b", "swin_v2_t", "swin_v2_s", "swin_v2_b"], 64, 256)
MODELS["swin_t"] = (64, 224, {}, {})
MODELS["swin_s"] = (64, 224, {}, {})
MODELS["swin_b"] = (64, 224, {}, {})
# MaxViT partitions into 7x7 windows at stride 32: 224 is its smallest size.
_add(["maxvit_t"], 224)
# Segmentation: no auxiliary head, no pretrained backbone.
SEGMENTATION = ["fcn_resnet50", "fcn_resnet101", "deeplabv3_resnet50", "deeplabv3_resnet101",
                "deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large"]
_add(SEGMENTATION, 64, 520, {"weights_backbone": None})
for _n in SEGMENTATION:
    if not _n.startswith("lraspp"):
        MODELS[_n][2]["aux_loss"] = False

# Scripted instead of traced (NAME_script): the model's own control flow and method calls reach the
# exporter (a scripted MobileNetV3's forward -> _forward_impl once crashed the example run; scripted
# Swin builds its attention mask by slice assignments inside a branch).
SCRIPTED = ["mobilenet_v3_small", "efficientnet_b0", "shufflenet_v2_x0_5", "swin_t"]
for _n in SCRIPTED:
    MODELS[_n + "_script"] = MODELS[_n]

# The models the test suite runs at the CI size (tests/zoo/test_zoo.cpp lists the same);
# scripts/zoo_full.sh runs every model.
CI = ["alexnet", "vgg11_bn", "resnet18", "resnet50", "resnext50_32x4d", "wide_resnet50_2",
      "mobilenet_v2", "mobilenet_v3_large", "mobilenet_v3_small", "efficientnet_b0",
      "efficientnet_v2_s", "densenet121", "squeezenet1_0", "squeezenet1_1", "shufflenet_v2_x0_5",
      "shufflenet_v2_x1_0", "mnasnet0_5", "mnasnet1_0", "googlenet", "inception_v3",
      "regnet_x_400mf", "regnet_y_400mf", "convnext_tiny", "vit_b_32", "maxvit_t", "swin_t", "swin_v2_t",
      "fcn_resnet50", "deeplabv3_resnet50", "deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large"]
CI += [n + "_script" for n in SCRIPTED]


def build(name: str, full: bool):
    import torch
    import torchvision
    import make_fixtures as mf
    import make_tiny_cnn
    ci_res, full_res, kwargs, ci_kwargs = MODELS[name]
    res = full_res if full else ci_res
    if not full:
        kwargs = {**kwargs, **ci_kwargs}
    seed = mf.seed_of(name)
    torch.manual_seed(seed)
    ns = torchvision.models.segmentation if name in SEGMENTATION else torchvision.models
    model = getattr(ns, name[: -len("_script")] if name.endswith("_script") else name)(weights=None, **kwargs)
    make_tiny_cnn.randomize_batchnorm(model, torch.Generator().manual_seed(seed + 1))
    damp_residuals(model)
    model.eval()
    if name in SEGMENTATION:
        model = SegmentationOut(model)
    x = torch.randn(1, 3, res, res, generator=torch.Generator().manual_seed(seed + 2))
    scale_head(model, x)
    return model, x


def SegmentationOut(model):
    """The segmentation models return {"out": tensor}; the exporter has no dict outputs yet
    (prim::DictConstruct at the graph output), so export the "out" tensor, as users usually do."""
    import torch.nn as nn

    class Out(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            return self.m(x)["out"]

    return Out(model).eval()


def scale_head(model, x):
    """compare.js passes |a-b| <= rtol*(1+|b|): with outputs of 0.01 (random heads) that is a 20%
    tolerance. Scale the last layer(s) (linear or conv, followed only by positively homogeneous ops)
    so the first output's std is about 1."""
    import torch
    import torch.nn as nn
    import make_fixtures as mf
    with torch.no_grad():
        std = float(mf.flatten_outputs(model(x))[0].std())
        if not std > 0:
            return
        heads = [m for m in model.modules() if isinstance(m, (nn.Linear, nn.Conv2d))][-1:]
        low = getattr(getattr(getattr(model, "m", model), "classifier", None), "low_classifier", None)  # LRASPP: two heads summed
        if low is not None:
            heads.append(low)
        for h in heads:
            h.weight.mul_(1.0 / std)
            if h.bias is not None:
                h.bias.mul_(1.0 / std)


def damp_residuals(model):
    """Residual streams whose variance grows block after block (torchvision's init with randomized BN
    stats) give outputs of 100s, and rtol is measured against the float rounding error of those:
    scale each residual branch's last BN down so values stay O(1)."""
    import torch
    import torchvision.models as tvm
    with torch.no_grad():
        for m in model.modules():
            last = None
            if isinstance(m, tvm.resnet.Bottleneck):
                last = m.bn3
            elif isinstance(m, tvm.resnet.BasicBlock):
                last = m.bn2
            elif isinstance(m, tvm.regnet.ResBottleneckBlock):
                last = m.f.c[1]
            if last is not None:
                last.weight.mul_(0.3)


def generate(out_dir: str, name: str, full: bool) -> None:
    import make_fixtures as mf
    target = os.path.join(out_dir, name + ("_full" if full else ""))
    # Once per version of this file and of torch, in the fixture cache (ctest runs the opset 13 and 17
    # tests of a model in parallel: one generates, the other waits).
    mf.generate_once(target, __file__, lambda digest: _generate(target, name, full, digest),
                     extra_sources=(mf.__file__,))


def _generate(target: str, name: str, full: bool, digest: str) -> None:
    import torch
    import make_fixtures as mf
    torch.set_num_threads(int(os.environ.get("T2O_FIXTURE_THREADS", "1")))
    model, x = build(name, full)
    # Traced with autograd on: under no_grad some eval-mode layers trace to fused fast-path ops.
    method = "script" if name.endswith("_script") else "trace"
    ts = torch.jit.script(model) if method == "script" else torch.jit.trace(model, (x,), check_trace=False)
    pt = os.path.join(target, "model.pt")
    ts.save(pt)
    del ts, model
    meta = mf.outputs_meta(pt, [x], RTOL, target, method)
    meta["source_hash"] = digest
    meta["name"] = name
    with open(os.path.join(target, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)


def main(argv) -> int:
    if argv[1:2] == ["--list"]:
        print("\n".join(CI if "--ci" in argv else MODELS))
        return 0
    args = [a for a in argv[1:] if not a.startswith("--")]
    if len(args) == 1 and "--all-ci" in argv:  # the CI list, in one process
        for name in CI:
            generate(args[0], name, False)
        return 0
    if len(args) != 2:
        raise SystemExit(__doc__)
    out_dir, name = args
    if name not in MODELS:
        raise SystemExit(f"make_zoo_fixtures: unknown model '{name}' (try --list)")
    generate(out_dir, name, "--full" in argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
