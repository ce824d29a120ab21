#!/usr/bin/python3
"""Builds the bundled example model examples/tiny_cnn/tiny_cnn.pt (TorchScript, traced, eval mode).

    /usr/bin/python3 examples/tiny_cnn/make_tiny_cnn.py [OUT.pt]

A small CNN with convs, BatchNorm (with randomized running stats and affine params, so BN is really
exercised), ReLU, max-pool, adaptive average pool, flatten and a linear layer. Input float32[1,3,32,32],
output float32[1,10]. Weights are random with a fixed seed. tests/fixtures/make_fixtures.py imports
build_model() from here for the `tiny_cnn` fixture.
"""
import os
import sys

import torch
import torch.nn as nn

INPUT_SHAPE = (1, 3, 32, 32)
SEED = 1234


class TinyCNN(nn.Module):
    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1, bias=False),
            nn.BatchNorm2d(16),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1, bias=False),
            nn.BatchNorm2d(32),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1),
            nn.BatchNorm2d(64),
            nn.ReLU(inplace=True),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x):
        x = self.features(x)
        x = self.pool(x)
        x = torch.flatten(x, 1)
        return self.fc(x)


def randomize_batchnorm(model: nn.Module, gen: torch.Generator) -> None:
    """Gives every BatchNorm non-trivial running stats (positive variance) and affine params."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                n = m.num_features
                m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
                if m.affine:
                    m.weight.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
                    m.bias.copy_(torch.randn(n, generator=gen) * 0.1)


def build_model(seed: int = SEED) -> nn.Module:
    torch.manual_seed(seed)
    model = TinyCNN()
    gen = torch.Generator().manual_seed(seed + 1)
    randomize_batchnorm(model, gen)
    return model.eval()


def main() -> int:
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                            "tiny_cnn.pt")
    model = build_model()
    example = torch.randn(*INPUT_SHAPE, generator=torch.Generator().manual_seed(SEED + 2))
    with torch.no_grad():
        traced = torch.jit.trace(model, example)
    traced.save(out)
    print(f"wrote {out} ({os.path.getsize(out)} bytes), input float32{list(INPUT_SHAPE)}, "
          f"output float32{list(traced(example).shape)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
