#!/usr/bin/python3
"""Quantized-model fixtures (run with Debian's /usr/bin/python3: torch 1.13, torchvision 0.14).

    /usr/bin/python3 tests/quantized/make_quant_fixtures.py OUT_DIR NAME
    /usr/bin/python3 tests/quantized/make_quant_fixtures.py --list
    /usr/bin/python3 tests/quantized/make_quant_fixtures.py OUT_DIR --all|--all-slow
                 every fixture of the quantized (quantized_slow) tests, in one process

Writes OUT_DIR/NAME/: model.pt, input_K.bin, expected_K.bin and meta.json as
tests/quantized/compare_quant.js reads it. The quantization engine is qnnpack (oneDNN for the
3-d convolutions, which qnnpack cannot save).

Activations are observed with reduce_range (uint8 values 0..127), as PyTorch's x86 qconfigs do: on an
x86-64 CPU without VNNI, oneDNN's and ONNX Runtime's fused uint8 x int8 kernels (QLinearConv,
QLinearMatMul) add products in pairs with vpmaddubsw, which saturates at int16 for activations above
127; a fixture that never reaches that gives the same reference and the same ONNX Runtime result on
every CPU (see qconfig() below).

  tv_<model>   torchvision's quantizable <model> (random weights, BatchNorm statistics randomized),
               fused, post-training static quantization calibrated on random images, converted,
               then scripted or traced (see MODELS) and saved
  qat          a small CNN prepared for quantization-aware training (FakeQuantize modules), trained a
               few steps on random data, observers off, traced: fake-quantize ops (exported as
               QuantizeLinear/DequantizeLinear)
  qat_fused    the same with torch.ao's default QAT qconfig (FusedMovingAvgObsFakeQuantize)
  dyn_lstm     dynamically quantized LSTM + Linear (torch.ao.quantization.quantize_dynamic)
  dyn_gru      dynamically quantized 2-layer bidirectional GRU (batch first) + Linear, with an initial state
  dyn_linear   dynamically quantized Linear stack
  emb_<case>   quantized embeddings (float_qparams_weight_only_qconfig / _4bit: nn.Embedding and
               nn.EmbeddingBag converted to torch.ao.nn.quantized modules, or the quantized::
               embedding ops called on their packed tables or on fused-row tables), see EMBEDDINGS

Tolerance ("atol" in meta.json): a few quantization steps of the model's last quantized tensor
(STEPS * its scale): ONNX Runtime and qnnpack round the same real-valued intermediate results
independently, and a one-step difference inside the network moves the output by about a step.
"max_mismatch" is the fraction of elements allowed beyond atol (a handful of ties rounding the other
way in an early layer can move a few outputs further); "mean_atol" bounds the mean absolute error.
An op case may give its own "steps" (a fraction of a step: the result must be on PyTorch's grid, not
merely near it) and "max_mismatch".
"require" gives the least number of nodes of each type the export must contain (QDQ form present:
not a dequantize-everything float model), "int8_weights" that weights are stored as 8-bit integers.
Embeddings (emb_*) dequantize their rows in float arithmetic exactly as PyTorch's kernel does, up to
its fused multiply-add and summation order: "atol" is EMB_ATOL (a few float32 ulps of values of order
1, no mismatch allowed), "uint8_table" the [N, D] shape of the uint8 initializer holding the table
(no float copy of the table may exist).
Regenerated only when this file changes.
"""
import json
import os
import sys

STEPS = 3

# name -> (torchvision constructor, input resolution, "script" or "trace", constructor kwargs)
MODELS = {
    "tv_resnet18": ("resnet18", 64, "trace", {}),
    "tv_resnet18_script": ("resnet18", 64, "script", {}),
    "tv_resnet50": ("resnet50", 64, "trace", {}),
    "tv_mobilenet_v2": ("mobilenet_v2", 64, "script", {}),
    "tv_mobilenet_v3_large": ("mobilenet_v3_large", 64, "trace", {}),
    "tv_shufflenet_v2_x1_0": ("shufflenet_v2_x1_0", 64, "trace", {}),
    "tv_googlenet": ("googlenet", 64, "trace", {"aux_logits": False, "init_weights": True}),
    "tv_inception_v3": ("inception_v3", 80, "trace", {"aux_logits": False, "init_weights": True}),
}
OTHER = ["qat", "qat_fused", "dyn_lstm", "dyn_gru", "dyn_linear"]
EMB_ATOL = 1e-5

# Embedding cases: name -> (kind, options); see embedding_model(). kind: "embedding" (nn.Embedding),
# "bag" (nn.EmbeddingBag), "modes" (the bag ops called with mode 0, 1, 2), "fused" (the
# *_rowwise_offsets ops on fused-row tables), "pruned" (pruned_weights=True: rows looked up through
# compressed_indices_mapping, -1 skipped).
# bits: 8 (quint8) or 4 (quint4x2); save: "script" or "trace"; rows/dim: the table.
EMBEDDINGS = {
    # 20000 x 64 bytes: more than a MiB, so the table is loaded lazily (the CLI's default)
    "emb_byte": ("embedding", dict(bits=8, save="script", rows=20000, dim=64, indices=(3, 5))),
    "emb_byte_trace": ("embedding", dict(bits=8, save="trace", rows=50, dim=12, indices=(9,))),
    "emb_4bit": ("embedding", dict(bits=4, save="script", rows=50, dim=16, indices=(2, 7))),
    "emb_4bit_trace": ("embedding", dict(bits=4, save="trace", rows=50, dim=10, indices=(9,))),
    # as torch.ao 1.13 converts it: the module calls embedding_byte on its 4-bit table (refused)
    "emb_4bit_unrepaired": ("embedding", dict(bits=4, save="script", rows=50, dim=16, indices=(2, 7), repair=False)),
    # offsets [0, 3, 3, 7, 8]: bag 1 is empty
    "emb_bag_byte": ("bag", dict(bits=8, save="script", rows=40, dim=12)),
    "emb_bag_byte_trace": ("bag", dict(bits=8, save="trace", rows=40, dim=12, psw=True)),
    "emb_bag_byte_psw": ("bag", dict(bits=8, save="script", rows=40, dim=12, psw=True)),
    "emb_bag_byte_last": ("bag", dict(bits=8, save="script", rows=40, dim=12, include_last=True)),
    "emb_bag_byte_2d": ("bag", dict(bits=8, save="script", rows=40, dim=12, indices=(4, 3))),
    # exported with 10 indices in 5 bags, both dynamic; run on 17 indices in 7 bags
    "emb_bag_byte_dynamic": ("bag", dict(bits=8, save="script", rows=40, dim=12, dynamic=True)),
    "emb_bag_4bit": ("bag", dict(bits=4, save="script", rows=40, dim=12)),
    "emb_bag_4bit_trace": ("bag", dict(bits=4, save="trace", rows=40, dim=12, psw=True)),
    "emb_bag_4bit_psw": ("bag", dict(bits=4, save="script", rows=40, dim=12, psw=True, include_last=True)),
    "emb_bag_byte_modes": ("modes", dict(bits=8, save="script", rows=30, dim=32)),
    "emb_bag_4bit_modes": ("modes", dict(bits=4, save="script", rows=30, dim=32)),
    "emb_bag_fused": ("fused", dict(save="script", rows=30, dim=16)),
    "emb_bag_pruned": ("pruned", dict(bits=8, save="script", rows=30, dim=16)),
}

def qconfig(per_channel=False):
    """qnnpack's default static qconfig (histogram activations, symmetric int8 weights), or per-channel
    weights with min/max activations, with reduce_range activations (see the module's doc)."""
    import torch.ao.quantization as tq
    if per_channel:
        return tq.QConfig(activation=tq.MinMaxObserver.with_args(reduce_range=True),
                          weight=tq.default_per_channel_weight_observer)
    return tq.QConfig(activation=tq.HistogramObserver.with_args(reduce_range=True), weight=tq.default_weight_observer)


# Op-level cases: name -> (body factory, input shapes, require, int8 weights, options). The body is
# wrapped between QuantStubs and a DeQuantStub, quantized in eager mode (qnnpack qconfig, or per-channel
# weights with "per_channel"), calibrated on random data and scripted; "fuse" names submodules to fuse;
# "raw": the body is the whole model (functional quantize / fake-quantize ops, no quantization step),
# with "step" its output's quantization step.
OPS = {}


def _op(name, factory, shapes, require, int8=False, **options):
    OPS["op_" + name] = (factory, shapes, require, int8, options)


def _define_ops():
    import torch
    import torch.nn as nn
    import torch.ao.nn.quantized as nnq

    class Binary(nn.Module):
        def __init__(self, kind):
            super().__init__()
            self.kind = kind
            self.ff = nnq.FloatFunctional()

        def forward(self, x, y):
            if self.kind == "add":
                return self.ff.add(x, y)
            if self.kind == "add_relu":
                return self.ff.add_relu(x, y)
            if self.kind == "mul":
                return self.ff.mul(x, y)
            return self.ff.cat([x, y], 1)

    class QuantizeDequantize(nn.Module):
        def forward(self, x):
            a = torch.quantize_per_tensor(x, 0.05, 128, torch.quint8).dequantize()
            b = torch.quantize_per_tensor(x, 0.03, 3, torch.qint8).dequantize()
            return a + b

    class QuantizePerChannel(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("scales", torch.tensor([0.02, 0.05, 0.03, 0.1], dtype=torch.float64))
            self.register_buffer("zero_points", torch.tensor([0, 128, 100, 30]))

        def forward(self, x):
            return torch.quantize_per_channel(x, self.scales, self.zero_points, 1, torch.quint8).dequantize()

    class FakeQuantTensor(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("scale", torch.tensor([0.04]))
            self.register_buffer("zero_point", torch.tensor([7], dtype=torch.int32))

        def forward(self, x):
            a = torch.fake_quantize_per_tensor_affine(x, 0.05, 10, 0, 255)
            b = torch.fake_quantize_per_tensor_affine(x, 0.02, 0, -128, 127)
            c = torch.fake_quantize_per_tensor_affine(x, self.scale, self.zero_point, 0, 255)
            return torch.cat([a, b, c], 1)

    class FakeQuantChannel(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("scale", torch.tensor([0.02, 0.05, 0.03, 0.1]))
            self.register_buffer("zero_point", torch.tensor([0, -5, 3, 20], dtype=torch.int32))

        def forward(self, x):
            return torch.fake_quantize_per_channel_affine(x, self.scale, self.zero_point, 1, -128, 127)

    class QuantizedSigmoid(nn.Module):
        def forward(self, x):
            q = torch.quantize_per_tensor(x, 0.05, 128, torch.quint8)
            return torch.ops.quantized.sigmoid(q, 1.0 / 256, 0).dequantize()

    class FixedGrids(nn.Module):
        # ATen's sigmoid, tanh and hardsigmoid on a quantized tensor: results on PyTorch's fixed grids
        # (quint8: 1/256 and 0, 2/256 and 128, 1/256 and 0; qint8: 1/256 and -128, 2/256 and 0, 1/256 and -128)
        def __init__(self, dtype):
            super().__init__()
            self.dtype = dtype

        def forward(self, x):
            q = torch.quantize_per_tensor(x, 0.05, 128 if self.dtype == torch.quint8 else 0, self.dtype)
            return torch.cat([torch.sigmoid(q).dequantize(), torch.tanh(q).dequantize(),
                              torch.nn.functional.hardsigmoid(q).dequantize()], 1)

    class QuantizedSigmoidGrid(nn.Module):
        # quantized::sigmoid on a grid of its own (torch.ao.nn.quantized.Sigmoid(scale, zero_point)), which
        # QNNPACK cannot make for quint8: the reference comes from oneDNN, as the model's own engine
        def forward(self, x):
            a = torch.ops.quantized.sigmoid(torch.quantize_per_tensor(x, 0.05, 128, torch.quint8), 0.005, 20)
            b = torch.ops.quantized.sigmoid(torch.quantize_per_tensor(x, 0.04, 3, torch.qint8), 0.005, -100)
            return torch.cat([a.dequantize(), b.dequantize()], 1)

    class QuantizedDtype(nn.Module):
        # a quantized tensor's dtype read in the model (folded from the example run: quint8, not float32)
        def forward(self, x):
            q = torch.quantize_per_tensor(x, 0.05, 128, torch.quint8)
            if q.dtype == torch.quint8 and not q.is_floating_point():
                return torch.sigmoid(q).dequantize()
            return q.dequantize()

    class BatchNorm(nn.Module):
        # torch.ao's quantized BatchNorm2d / BNReLU2d modules cannot be scripted in 1.13 (their scale is
        # a tensor): the ops themselves.
        def __init__(self, relu):
            super().__init__()
            self.relu = relu
            g = torch.Generator().manual_seed(3)
            self.register_buffer("weight", torch.rand(4, generator=g) + 0.5)
            self.register_buffer("bias", torch.randn(4, generator=g) * 0.1)
            self.register_buffer("mean", torch.randn(4, generator=g) * 0.1)
            self.register_buffer("var", torch.rand(4, generator=g) + 0.5)

        def forward(self, x):
            q = torch.quantize_per_tensor(x, 0.03, 128, torch.quint8)
            if self.relu:
                y = torch.ops.quantized.batch_norm2d_relu(q, self.weight, self.bias, self.mean, self.var, 1e-5, 0.04, 0)
            else:
                y = torch.ops.quantized.batch_norm2d(q, self.weight, self.bias, self.mean, self.var, 1e-5, 0.04, 100)
            return y.dequantize()

    class FakeQuant0to127(nn.Module):
        def forward(self, x):
            return torch.fake_quantize_per_tensor_affine(x, 0.03, 64, 0, 127)

    class DynamicLinear(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(16, 8)

        def forward(self, x):
            return self.fc(x)

    img = [(1, 4, 8, 8)]
    qdq = {"QuantizeLinear": 1, "DequantizeLinear": 1}
    _op("quantize_dequantize", QuantizeDequantize, [(2, 3, 5)], {"QuantizeLinear": 2}, raw=True, step=0.05)
    _op("conv1d", lambda: nn.Conv1d(4, 6, 3, padding=1), [(1, 4, 16)], {**qdq, "Conv": 1}, True)
    _op("conv2d", lambda: nn.Conv2d(3, 8, 3, stride=2, padding=1, dilation=1), [(1, 3, 16, 16)], {**qdq, "Conv": 1}, True)
    _op("conv2d_relu", lambda: nn.Sequential(nn.Conv2d(3, 8, 3, padding=2, dilation=2), nn.ReLU()), [(1, 3, 12, 12)],
        {**qdq, "Conv": 1, "Relu": 1}, True, fuse=[["0", "1"]])
    # QNNPACK cannot save (unpack) 3-d quantized convolutions: made under oneDNN, which the exporter
    # then loads them with.
    _op("conv3d", lambda: nn.Conv3d(3, 6, 3, stride=(1, 2, 2), padding=1), [(1, 3, 6, 8, 8)], {**qdq, "Conv": 1}, True,
        engine="onednn")
    _op("conv3d_relu", lambda: nn.Sequential(nn.Conv3d(2, 4, (1, 3, 3)), nn.ReLU()), [(1, 2, 4, 7, 7)],
        {**qdq, "Conv": 1, "Relu": 1}, True, fuse=[["0", "1"]], engine="onednn")
    _op("conv_transpose2d", lambda: nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1), img,
        {**qdq, "ConvTranspose": 1}, True)
    _op("conv2d_per_channel", lambda: nn.Conv2d(3, 8, 3, padding=1), [(1, 3, 10, 10)], {**qdq, "Conv": 1}, True,
        per_channel=True)
    # Gemm from opset 11 (MatMul + Add at 10)
    _op("linear", lambda: nn.Linear(16, 8), [(2, 16)], {"QuantizeLinear": 1, "DequantizeLinear": 3}, True)
    _op("linear_relu", lambda: nn.Sequential(nn.Linear(16, 8), nn.ReLU()), [(2, 16)], {**qdq, "Relu": 1},
        True, fuse=[["0", "1"]])
    _op("linear_3d", lambda: nn.Linear(16, 8), [(2, 5, 16)], {**qdq, "MatMul": 1}, True)
    _op("linear_per_channel", lambda: nn.Linear(16, 8), [(2, 16)], {**qdq, "Gemm": 1}, True, per_channel=True)
    for kind in ["add", "add_relu", "mul", "cat"]:
        _op(kind, (lambda k: lambda: Binary(k))(kind), [(1, 4, 6, 6), (1, 4, 6, 6)], qdq)
    _op("hardswish", nn.Hardswish, img, qdq)
    _op("leaky_relu", lambda: nn.LeakyReLU(0.1), img, {**qdq, "LeakyRelu": 1})
    _op("elu", lambda: nn.ELU(0.7), img, {**qdq, "Elu": 1})
    _op("sigmoid", QuantizedSigmoid, img, {"QuantizeLinear": 2, "Sigmoid": 1}, raw=True, step=1.0 / 256)
    # values compared within half a step of 1/256 (tanh's step is 2/256): a result on another grid fails
    big = [(2, 4, 8, 8)]
    for name, dtype in (("quint8", torch.quint8), ("qint8", torch.qint8)):
        _op("fixed_grids_" + name, (lambda d: lambda: FixedGrids(d))(dtype), big,
            {"QuantizeLinear": 4, "Sigmoid": 1, "Tanh": 1, "HardSigmoid": 1}, raw=True, step=1.0 / 256, steps=0.5,
            max_mismatch=0.01, scale_input=3.0)
    _op("quantized_sigmoid_grid", QuantizedSigmoidGrid, big, {"QuantizeLinear": 4, "Sigmoid": 2}, raw=True,
        step=0.005, steps=0.5, max_mismatch=0.01, scale_input=3.0, engine="onednn")
    _op("quantized_dtype", QuantizedDtype, img, {"Sigmoid": 1}, raw=True, step=1.0 / 256, steps=0.5,
        max_mismatch=0.01)
    _op("relu6", nn.ReLU6, img, {"Clip": 1})
    _op("batch_norm2d", lambda: BatchNorm(False), img, {"QuantizeLinear": 2, "BatchNormalization": 1}, raw=True,
        step=0.04)
    _op("batch_norm2d_relu", lambda: BatchNorm(True), img, {"QuantizeLinear": 2, "BatchNormalization": 1, "Relu": 1},
        raw=True, step=0.04)
    _op("instance_norm", lambda: nn.InstanceNorm2d(4, affine=True), img, {**qdq, "InstanceNormalization": 1})
    _op("group_norm", lambda: nn.GroupNorm(2, 4), img, {**qdq, "InstanceNormalization": 1})
    _op("layer_norm", lambda: nn.LayerNorm([8]), [(2, 5, 8)], qdq)
    _op("pooling", lambda: nn.Sequential(nn.MaxPool2d(2), nn.AvgPool2d(2, ceil_mode=True), nn.AdaptiveAvgPool2d(1)),
        [(1, 4, 10, 10)], {"MaxPool": 1, "AveragePool": 1})
    _op("upsample", lambda: nn.Upsample(scale_factor=2, mode="nearest"), img, {"Resize": 1})
    _op("quantize_per_channel", QuantizePerChannel, img, {"QuantizeLinear": 1}, raw=True, step=0.1)
    _op("fake_quant_tensor", FakeQuantTensor, img, {"QuantizeLinear": 3}, raw=True, step=0.05)
    _op("fake_quant_channel", FakeQuantChannel, img, {"QuantizeLinear": 1}, raw=True, step=0.1)
    _op("fake_quant_0_127", FakeQuant0to127, img, {"QuantizeLinear": 1, "Clip": 1}, raw=True, step=0.03)
    _op("dynamic_linear", DynamicLinear, [(2, 5, 16)], {"DynamicQuantizeLinear": 1}, True, dynamic=True)


_define_ops()


def names():
    return list(MODELS) + OTHER + list(OPS) + list(EMBEDDINGS)


def op_model(name):
    import torch
    import torch.nn as nn
    import torch.ao.quantization as tq
    factory, shapes, require, int8, options = OPS[name]
    torch.manual_seed(len(name) * 7 + 1)
    gen = torch.Generator().manual_seed(len(name))
    inputs = [torch.randn(*s, generator=gen) * options.get("scale_input", 1.0) for s in shapes]
    if options.get("raw"):
        if options.get("engine"):
            torch.backends.quantized.engine = options["engine"]
        model = factory().eval()
        return torch.jit.script(model), inputs, options["step"], require, int8
    if options.get("dynamic"):
        model = tq.quantize_dynamic(factory().eval(), {nn.Linear}, dtype=torch.qint8)
        with torch.no_grad():
            y = model(*inputs)
        return torch.jit.script(model), inputs, float(y.max() - y.min()) / 255, require, int8

    class Wrap1(nn.Module):
        def __init__(self, body):
            super().__init__()
            self.quant = tq.QuantStub()
            self.body = body
            self.dequant = tq.DeQuantStub()

        def forward(self, x):
            return self.dequant(self.body(self.quant(x)))

    class Wrap2(nn.Module):
        def __init__(self, body):
            super().__init__()
            self.quant_x = tq.QuantStub()
            self.quant_y = tq.QuantStub()
            self.body = body
            self.dequant = tq.DeQuantStub()

        def forward(self, x, y):
            return self.dequant(self.body(self.quant_x(x), self.quant_y(y)))

    if options.get("engine"):
        torch.backends.quantized.engine = options["engine"]
    body = factory()
    model = (Wrap1(body) if len(shapes) == 1 else Wrap2(body)).eval()
    if options.get("fuse"):
        tq.fuse_modules(model.body, options["fuse"], inplace=True)
    model.qconfig = qconfig(per_channel=bool(options.get("per_channel")))
    tq.prepare(model, inplace=True)
    with torch.no_grad():
        for _ in range(3):
            model(*[torch.randn(*s, generator=gen) for s in shapes])
        model(*inputs)
    tq.convert(model, inplace=True)
    return torch.jit.script(model), inputs, last_quant_scale(model, inputs), require, int8


def randomize_batchnorm(model, gen):
    import torch
    import torch.nn as nn
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.copy_(torch.randn(m.num_features, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(m.num_features, generator=gen) * 0.5 + 0.75)
                m.weight.copy_(torch.rand(m.num_features, generator=gen) * 0.5 + 0.75)
                m.bias.copy_(torch.randn(m.num_features, generator=gen) * 0.1)


def torchvision_model(name):
    import torch
    import torchvision.models.quantization as qm
    ctor, res, mode, kwargs = MODELS[name]
    torch.manual_seed(len(name))
    model = getattr(qm, ctor)(weights=None, quantize=False, **kwargs)
    randomize_batchnorm(model, torch.Generator().manual_seed(7))
    model.eval()
    model.fuse_model(is_qat=False)
    model.qconfig = qconfig()
    torch.ao.quantization.prepare(model, inplace=True)
    gen = torch.Generator().manual_seed(11)
    with torch.no_grad():
        for _ in range(4):
            model(torch.rand(2, 3, res, res, generator=gen))
    torch.ao.quantization.convert(model, inplace=True)
    x = torch.rand(1, 3, res, res, generator=gen)
    if mode == "script":
        saved = torch.jit.script(model)
    else:
        saved = torch.jit.trace(model, x)
    # The output's quantization step: the scale of the last quantized tensor before dequantize.
    out_scale = last_quant_scale(model, [x])
    require = {"QuantizeLinear": 10, "DequantizeLinear": 10, "Conv": 10}
    return saved, [x], out_scale, require, True


def last_quant_scale(model, inputs):
    import torch
    scales = []
    hooks = [m.register_forward_hook(lambda m, i, o: scales.append(o.q_scale()) if torch.is_tensor(o) and o.is_quantized else None)
             for m in model.modules()]
    with torch.no_grad():
        model(*inputs)
    for h in hooks:
        h.remove()
    return scales[-1]


def qat_model(fused=False):
    import torch
    import torch.nn as nn
    import torch.ao.quantization as tq

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = tq.QuantStub()
            self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
            self.bn1 = nn.BatchNorm2d(8)
            self.relu1 = nn.ReLU()
            self.conv2 = nn.Conv2d(8, 16, 3, stride=2)
            self.relu2 = nn.ReLU()
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(16, 10)
            self.dequant = tq.DeQuantStub()

        def forward(self, x):
            x = self.quant(x)
            x = self.relu1(self.bn1(self.conv1(x)))
            x = self.relu2(self.conv2(x))
            x = self.pool(x).flatten(1)
            return self.dequant(self.fc(x))

    torch.manual_seed(3)
    model = Net().train()
    model = tq.fuse_modules_qat(model, [["conv1", "bn1", "relu1"], ["conv2", "relu2"]])
    # version 1 (the default): FusedMovingAvgObsFakeQuantize (aten::fused_moving_avg_obs_fake_quant);
    # version 0: FakeQuantize modules (fake_quantize_per_tensor_affine / per_channel_affine).
    model.qconfig = tq.get_default_qat_qconfig("qnnpack", version=1 if fused else 0)
    tq.prepare_qat(model, inplace=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    gen = torch.Generator().manual_seed(5)
    for _ in range(5):
        x = torch.randn(4, 3, 16, 16, generator=gen)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.apply(tq.disable_observer)
    model.eval()
    x = torch.randn(1, 3, 16, 16, generator=gen)
    # Traced: the prepared model's observer hooks cannot be scripted.
    saved = torch.jit.trace(model, x)
    out_scale = float(model.fc.activation_post_process.scale)
    return saved, [x], out_scale, {"QuantizeLinear": 4, "DequantizeLinear": 4, "Conv": 2}, False


def dynamic_model(name):
    import torch
    import torch.nn as nn

    class Lstm(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True)
            self.fc = nn.Linear(16, 4)

        def forward(self, x):
            y, _ = self.lstm(x)
            return self.fc(y)

    class Gru(nn.Module):
        def __init__(self):
            super().__init__()
            self.gru = nn.GRU(8, 12, num_layers=2, batch_first=True, bidirectional=True)
            self.fc = nn.Linear(24, 4)

        def forward(self, x, h0):
            y, h = self.gru(x, h0)
            return self.fc(y), h

    class Mlp(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(32, 64)
            self.fc2 = nn.Linear(64, 8)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x)))

    torch.manual_seed(9)
    float_model = {"dyn_lstm": Lstm, "dyn_gru": Gru, "dyn_linear": Mlp}[name]().eval()
    types = {"dyn_lstm": {nn.LSTM, nn.Linear}, "dyn_gru": {nn.GRU, nn.Linear}, "dyn_linear": {nn.Linear}}[name]
    model = torch.ao.quantization.quantize_dynamic(float_model, types, dtype=torch.qint8)
    gen = torch.Generator().manual_seed(4)
    if name == "dyn_lstm":
        inputs = [torch.randn(2, 5, 8, generator=gen)]
    elif name == "dyn_gru":
        inputs = [torch.randn(3, 6, 8, generator=gen), torch.randn(4, 3, 12, generator=gen) * 0.5]
    else:
        inputs = [torch.randn(3, 32, generator=gen)]
    saved = torch.jit.trace(model, tuple(inputs))
    # Dynamic quantization picks each activation's scale from its range at run time: a step of the
    # output is about its range / 255.
    with torch.no_grad():
        y = model(*inputs)
    y = y[0] if isinstance(y, tuple) else y
    out_scale = float(y.max() - y.min()) / 255
    require = {"DynamicQuantizeLinear": 1, "DequantizeLinear": 2}
    return saved, inputs, out_scale, require, True


def embedding_model(name):
    import torch
    import torch.nn as nn
    import torch.ao.quantization as tq
    kind, o = EMBEDDINGS[name]
    torch.manual_seed(len(name) * 13 + 5)
    gen = torch.Generator().manual_seed(len(name))
    rows, dim = o["rows"], o["dim"]
    qconfig = tq.float_qparams_weight_only_qconfig_4bit if o.get("bits") == 4 else tq.float_qparams_weight_only_qconfig

    def quantized(module):
        # rows of different ranges and offsets, so the per-row scales and zero points differ
        with torch.no_grad():
            module.weight.mul_(torch.rand(rows, 1, generator=gen) * 2 + 0.1).add_(torch.randn(rows, 1, generator=gen))
        holder = nn.Sequential(module).eval()
        holder[0].qconfig = qconfig
        tq.prepare(holder, inplace=True)
        tq.convert(holder, inplace=True)
        if o.get("bits") == 4 and o.get("repair", True):
            # torch.ao 1.13's quantized Embedding.from_float keeps the default dtype quint8, so its
            # forward calls embedding_byte on the 4-bit table (garbage): the dtype it should have had.
            holder[0].dtype = torch.quint4x2
        return holder[0]

    def indices(shape):
        return torch.randint(0, rows, shape, generator=gen)

    offsets = torch.tensor([0, 3, 3, 7, 8])  # bag 1 empty; 10 indices
    psw = torch.rand(10, generator=gen) * 2 - 0.5
    if kind == "embedding":
        class Emb(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = quantized(nn.Embedding(rows, dim))

            def forward(self, x):
                return self.emb(x)
        model, inputs = Emb().eval(), [indices(o["indices"])]
    elif kind == "bag" or kind == "pruned":
        def quantized_bag():
            bag = quantized(nn.EmbeddingBag(rows, dim, mode="sum"))
            bag.include_last_offset = o.get("include_last", False)
            return bag

        class Bag(nn.Module):
            def __init__(self):
                super().__init__()
                self.bag = quantized_bag()

            def forward(self, x, offsets):
                return self.bag(x, offsets)

        class BagWeighted(nn.Module):
            def __init__(self):
                super().__init__()
                self.bag = quantized_bag()

            def forward(self, x, offsets, w):
                return self.bag(x, offsets, w)

        class Bag2d(nn.Module):
            def __init__(self):
                super().__init__()
                self.bag = quantized_bag()

            def forward(self, x):
                return self.bag(x)

        class Pruned(nn.Module):
            # a pruned table: index i reads row mapping[i], or nothing when that is -1
            def __init__(self):
                super().__init__()
                self.bag = quantized(nn.EmbeddingBag(rows, dim, mode="sum"))
                mapping = torch.randint(0, rows, (rows + 10,), generator=gen, dtype=torch.int32)
                mapping[::3] = -1
                self.register_buffer("mapping", mapping)

            def forward(self, x, offsets):
                return torch.ops.quantized.embedding_bag_byte(self.bag._packed_params._packed_weight, x, offsets, False,
                                                              0, True, None, self.mapping, False)
        if kind == "pruned":
            model = Pruned().eval()
            inputs = [torch.randint(0, rows + 10, (10,), generator=gen), offsets]
            assert bool((model.mapping[inputs[0]] == -1).any()), "no pruned row is looked up"
        elif "indices" in o:
            model, inputs = Bag2d().eval(), [indices(o["indices"])]
        elif o.get("psw"):
            model, inputs = BagWeighted().eval(), [indices((10,)), offsets, psw]
        elif o.get("dynamic"):
            model, inputs = Bag().eval(), [indices((17,)), torch.tensor([0, 0, 5, 6, 6, 12, 16])]
        else:
            model, inputs = Bag().eval(), [indices((10,)), offsets]
    elif kind == "modes":
        class Modes(nn.Module):
            # PyTorch 1.13's quantized kernels ignore mode: every one of these is a sum.
            def __init__(self):
                super().__init__()
                self.bag = quantized(nn.EmbeddingBag(rows, dim, mode="sum"))
                self.four_bit = o["bits"] == 4

            def forward(self, x, offsets):
                w = self.bag._packed_params._packed_weight
                if self.four_bit:
                    return (torch.ops.quantized.embedding_bag_4bit(w, x, offsets, False, 1, False, None, None, False),
                            torch.ops.quantized.embedding_bag_4bit(w, x, offsets, False, 2, False, None, None, True))
                return (torch.ops.quantized.embedding_bag_byte(w, x, offsets, False, 1, False, None, None, False),
                        torch.ops.quantized.embedding_bag_byte(w, x, offsets, False, 2, False, None, None, True))
        model, inputs = Modes().eval(), [indices((10,)), offsets]
    else:
        class Fused(nn.Module):
            # tables in the fused-row layouts (values, then scale and bias in each row), made by the
            # *_prepack ops from a float table
            def __init__(self):
                super().__init__()
                table = torch.randn(rows, dim, generator=gen) * (torch.rand(rows, 1, generator=gen) + 0.2)
                self.register_buffer("w8", torch.ops.quantized.embedding_bag_byte_prepack(table))
                self.register_buffer("w4", torch.ops.quantized.embedding_bag_4bit_prepack(table))
                self.register_buffer("w2", torch.ops.quantized.embedding_bag_2bit_prepack(table))

            def forward(self, x, offsets, w):
                a = torch.ops.quantized.embedding_bag_byte_rowwise_offsets(self.w8, x, offsets, False, 0, False, w)
                b = torch.ops.quantized.embedding_bag_4bit_rowwise_offsets(self.w4, x, offsets, False, 0, False, None,
                                                                           None, True)
                c = torch.ops.quantized.embedding_bag_2bit_rowwise_offsets(self.w2, x, offsets)
                return a, b, c
        model, inputs = Fused().eval(), [indices((10,)), offsets, psw]
    saved = torch.jit.script(model) if o["save"] == "script" else torch.jit.trace(model, tuple(inputs))
    table = None if kind == "fused" else [rows, dim]
    require = {"Gather": 3} if kind == "embedding" else {"Gather": 3, "ReduceSum": 1}
    cli = None
    if o.get("dynamic"):
        cli = {"inputs": ["int64[10]", "int64[5]"], "extra": ["--dynamic-axes", "x=0:n", "--dynamic-axes", "offsets=0:bags"]}
    return saved, inputs, EMB_ATOL, require, True, table, cli


def build(name):
    if name in EMBEDDINGS:
        return embedding_model(name)
    if name in OPS:
        return op_model(name)
    if name in MODELS:
        return torchvision_model(name)
    if name in ("qat", "qat_fused"):
        return qat_model(name == "qat_fused")
    return dynamic_model(name)


DTYPES = {"torch.float32": "float32", "torch.int64": "int64", "torch.quint8": "quint8",
          "torch.qint8": "qint8"}


def write_array(path, t):
    import torch
    if t.is_quantized:
        t = t.dequantize()
    with open(path, "wb") as f:
        f.write(t.detach().contiguous().numpy().tobytes())


def _generate(target, name, digest):
    import torch
    torch.backends.quantized.engine = "qnnpack"
    torch.set_num_threads(int(os.environ.get("T2O_FIXTURE_THREADS", "1")))
    built = build(name)
    saved, inputs, out_scale, require, int8_weights = built[:5]
    tmp = target  # a fresh directory of the fixture cache (make_fixtures.generate_once)
    saved.save(os.path.join(tmp, "model.pt"))
    cannot_reload = None
    try:
        reloaded = torch.jit.load(os.path.join(tmp, "model.pt")).eval()
    except RuntimeError as e:
        # PyTorch 2.14's loader checks each saved tensor's storage against numel * itemsize, which a
        # quint4x2 tensor (two values a byte) fails: it cannot load a 4-bit table it saved itself, and
        # neither can torch2onnx built against libtorch 2.14. The reference is then the module in
        # memory; test_quantized.cpp skips the case, naming this, when the export cannot load it.
        if "require a storage of at least" not in str(e):
            raise
        cannot_reload = "PyTorch %s cannot load the model it saved (%s)" % (torch.__version__, str(e).splitlines()[0])
        reloaded = saved
    with torch.no_grad():
        out = reloaded(*inputs)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    meta = {"inputs": [], "outputs": [], "cli_inputs": [], "source_hash": digest,
            "atol": STEPS * out_scale, "mean_atol": out_scale, "max_mismatch": 0.002,
            "steps": STEPS, "step": out_scale, "require": require, "int8_weights": int8_weights}
    if cannot_reload:
        meta["torch_cannot_reload"] = cannot_reload
    if name in OPS and "steps" in OPS[name][4]:  # a tolerance of its own: a fraction of a step, say
        o = OPS[name][4]
        meta.update({"atol": o["steps"] * out_scale, "steps": o["steps"], "max_mismatch": o["max_mismatch"]})
    if name in EMBEDDINGS:
        meta.update({"atol": EMB_ATOL, "mean_atol": EMB_ATOL, "max_mismatch": 0, "steps": 1, "step": EMB_ATOL,
                     "uint8_table": built[5]})
    for k, t in enumerate(inputs):
        write_array(os.path.join(tmp, "input_%d.bin" % k), t)
        dtype = "int64" if t.dtype == torch.int64 else "float32"
        meta["inputs"].append({"file": "input_%d.bin" % k, "dtype": dtype, "shape": list(t.shape)})
        meta["cli_inputs"].append("%s[%s]" % (DTYPES[str(t.dtype)], ",".join(str(d) for d in t.shape)))
    for k, t in enumerate(outs):
        write_array(os.path.join(tmp, "expected_%d.bin" % k), t)
        meta["outputs"].append({"file": "expected_%d.bin" % k, "dtype": "float32", "shape": list(t.shape)})
    if name in EMBEDDINGS and built[6]:
        # dynamic axes: exported at other example shapes than the ones compared ("cli_extra": more options)
        meta["cli_inputs"] = built[6]["inputs"]
        meta["cli_extra"] = built[6]["extra"]
    with open(os.path.join(tmp, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)


def generate(out_dir, name):
    """Once per version of this file and of torch, in the fixture cache (OUT_DIR/NAME links to it)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures"))
    import make_fixtures as mf
    target = os.path.join(out_dir, name)
    mf.generate_once(target, os.path.abspath(__file__), lambda digest: _generate(target, name, digest))


def main(argv):
    if argv[1:] == ["--list"]:
        print("\n".join(names()))
        return 0
    # Every fixture of the quantized label (--all) or of quantized_slow (--all-slow), in one process.
    slow = {"tv_mobilenet_v3_large", "tv_googlenet", "tv_inception_v3", "tv_resnet50"}
    if len(argv) == 3 and argv[2] in ("--all", "--all-slow"):
        for name in names():
            if (name in slow) == (argv[2] == "--all-slow"):
                generate(argv[1], name)
        return 0
    if len(argv) != 3 or argv[2] not in names():
        sys.stderr.write(__doc__)
        return 2
    generate(argv[1], argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
