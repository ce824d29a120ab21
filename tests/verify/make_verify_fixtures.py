# Fixtures of the verify tests (Debian's /usr/bin/python3 with torch): a small CNN and a small
# transformer encoder whose last layer's MLP uses the exact (erf) gelu while the others use the tanh
# approximation, so a pack that always emits the tanh form is wrong only deep inside the model.
#   python3 make_verify_fixtures.py OUT_DIR
import os
import sys

import numpy
import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.conv2(x))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


class Mlp(nn.Module):
    def __init__(self, dim, exact):
        super().__init__()
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)
        self.approximate = "none" if exact else "tanh"

    def forward(self, x):
        # Pre-activations of a few units in magnitude, where the two gelu forms differ by ~1e-4.
        return self.fc2(F.gelu(3.0 * self.fc1(x), approximate=self.approximate))


class Layer(nn.Module):
    def __init__(self, dim, heads, exact):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = Mlp(dim, exact)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        q = q.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
        att = torch.softmax(q @ k.transpose(-2, -1) / (d // self.heads) ** 0.5, dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.norm2(x))


class SmallTransformer(nn.Module):
    def __init__(self, vocab=50, dim=32, heads=4, layers=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList([Layer(dim, heads, exact=(i == layers - 1)) for i in range(layers)])
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        x = self.embed(ids)
        for layer in self.layers:
            x = layer(x)
        return self.head(x)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    cnn = SmallCnn().eval()
    with torch.no_grad():  # non-trivial batch-norm statistics
        cnn.bn1.running_mean.uniform_(-0.5, 0.5)
        cnn.bn1.running_var.uniform_(0.5, 1.5)
    torch.jit.trace(cnn, torch.randn(1, 3, 16, 16)).save(os.path.join(out, "small_cnn.pt"))
    tr = SmallTransformer().eval()
    torch.jit.trace(tr, torch.randint(0, 50, (2, 8))).save(os.path.join(out, "small_transformer.pt"))
    # Input files: a right one (.npy) and one of the wrong shape.
    write_npy(os.path.join(out, "npy_inputs", "input_0.npy"), torch.randn(1, 3, 16, 16))
    write_npy(os.path.join(out, "wrong_shape", "input_0.npy"), torch.randn(1, 3, 8, 8))
    with open(os.path.join(out, "not_onnx.onnx"), "w") as f:
        f.write("this is not an ONNX model\n")


def write_npy(path, t):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    numpy.save(path, t.numpy())


if __name__ == "__main__":
    main()
