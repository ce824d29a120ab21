# Models traced or scripted under torch.set_default_dtype(torch.float64) (issue 29): true division of
# integer tensors, Python floats with integer tensors, float arange/full/tensor/linspace without a
# dtype and random ops give float64. The default dtype reaches the export from the signature
# torch2onnx.save records (save="torch2onnx") or from --default-dtype (a plain .pt); the example run
# and the packs both use it. rtol 1e-12: a float32 computation cast to float64 would not pass.
import torch
from op_case import case

torch.manual_seed(0)
F64 = torch.float64
DD = ("--default-dtype", "float64")


class IntTrueDiv(torch.nn.Module):
    def forward(self, a, b):
        return a / b, torch.true_divide(a, 7), a * 1.5 + b, torch.div(a, b, rounding_mode="floor")


class Factories(torch.nn.Module):
    def forward(self, a):
        n = a.size(0)
        return (torch.arange(0.5, n, 0.25), a + 0.1, torch.full((2, n), 1.1), torch.linspace(0, 1, n),
                torch.zeros(n) + 0.1, torch.tensor(1.1) * a)


class Scripted(torch.nn.Module):
    def forward(self, a, b):
        c = torch.tensor(1.1)
        s = float(a.size(0)) / 3.0
        return a / b + c, torch.arange(0.5, a.size(0), 0.25), torch.full([2], s), a * 0.1


class Random(torch.nn.Module):
    def forward(self, a):
        return torch.rand(a.size(0), 1000) + a.unsqueeze(1) * 0, torch.randn(2000)


class Float32Default(torch.nn.Module):
    # an explicit --default-dtype float32 on a model saved under float32: as without it
    def forward(self, a, b):
        return a / b, a * 0.1


A = torch.tensor([123456789, -987654321, 31, 1 << 40])
B = torch.tensor([7, 3, -11, 13])
CASES = [
    case("int_true_div_recorded", IntTrueDiv(), [A, B], default_dtype=F64, save="torch2onnx", rtol=1e-12),
    case("int_true_div_option", IntTrueDiv(), [A, B], default_dtype=F64, cli_args=DD, rtol=1e-12),
    case("factories_recorded", Factories(), [torch.randn(4, dtype=F64)], default_dtype=F64, save="torch2onnx",
         rtol=1e-12, opsets=(9, 11, 17)),
    case("factories_option_dynamic", Factories(), [torch.randn(4, dtype=F64)], default_dtype=F64, rtol=1e-12,
         opsets=(11, 17), cli_args=DD + ("--dynamic-axes", "a=0"), more_inputs=[[torch.randn(7, dtype=F64)]]),
    case("scripted_option", Scripted(), [A, B], default_dtype=F64, method="script", cli_args=DD, rtol=1e-12,
         opsets=(11, 17)),
    case("random_recorded", Random(), [torch.randn(3, dtype=F64)], default_dtype=F64, save="torch2onnx",
         compare="stats"),
    case("float32_option", Float32Default(), [A, B], cli_args=("--default-dtype", "float32")),
]
