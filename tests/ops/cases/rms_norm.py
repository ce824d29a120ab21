# The RMSNorm pattern (core/src/prepare/rms_norm_pattern.cpp): RMSNormalization at opset 23 when the match is
# exact, its ops one by one at 22 and for near-misses. tests/patterns/ checks which exports hold an
# RMSNormalization node; here every variant is compared with PyTorch at both opsets.
import torch
from op_case import case

torch.manual_seed(0)
X = torch.randn(2, 5, 8)
RMS = (22, 23)


class RmsNorm(torch.nn.Module):
    """x * rsqrt(mean(x^2, dims, keepdim) + eps) * w, with the variants the matcher takes and misses."""

    def __init__(self, shape=(8,), dims=(-1,), square="pow", root="rsqrt", weight=True, weight_first=False,
                 eps_after_sqrt=False, keepdim=True, eps=1e-6):
        super().__init__()
        self.dims, self.square, self.root, self.keepdim, self.eps = list(dims), square, root, keepdim, eps
        self.weight_first, self.eps_after_sqrt = weight_first, eps_after_sqrt
        self.weight = torch.nn.Parameter(torch.randn(*shape)) if weight else None

    def forward(self, x):
        s = x.pow(2) if self.square == "pow" else x * x
        m = s.mean(self.dims, keepdim=self.keepdim)
        if self.eps_after_sqrt:
            h = x / (torch.sqrt(m) + self.eps)
        elif self.root == "rsqrt":
            h = x * torch.rsqrt(m + self.eps)
        else:
            h = x / torch.sqrt(m + self.eps)
        if self.weight is None:
            return h
        return self.weight * h if self.weight_first else h * self.weight


class LlamaRmsNorm(torch.nn.Module):
    """LLaMA's: statistics in float32, the result cast back to the input's dtype, then scaled."""

    def __init__(self, hidden, dtype):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(hidden).to(dtype))
        self.eps = 1e-5

    def forward(self, x):
        input_dtype = x.dtype
        h = x.to(torch.float32)
        variance = h.pow(2).mean(-1, keepdim=True)
        h = h * torch.rsqrt(variance + self.eps)
        return self.weight * h.to(input_dtype)


class LlamaInputs(torch.nn.Module):
    """float16 isn't computed by every ONNX Runtime kernel the decomposition uses: the test model casts
    its float32 input to float16 around the norm (the pattern sees a float16 x)."""

    def __init__(self, dtype):
        super().__init__()
        self.dtype = dtype
        self.norm = LlamaRmsNorm(8, dtype)

    def forward(self, x):
        return self.norm(x.to(self.dtype)).float()


CASES = [
    case("rms_norm", RmsNorm(), [X], opsets=RMS),
    case("rms_norm_x_times_x_weight_first", RmsNorm(square="mul", weight_first=True), [X], opsets=RMS),
    case("rms_norm_div_sqrt", RmsNorm(root="sqrt"), [X], opsets=RMS),
    case("rms_norm_two_dims", RmsNorm(shape=(5, 8), dims=(-2, -1)), [X], opsets=RMS),
    case("rms_norm_no_weight", RmsNorm(weight=False), [X], opsets=RMS),
    case("rms_norm_script", RmsNorm(), [X], opsets=RMS, method="script"),
    case("rms_norm_llama_f16", LlamaInputs(torch.float16), [X], opsets=RMS, rtol=2e-3),
    case("rms_norm_llama_f32", LlamaRmsNorm(8, torch.float32), [X], opsets=RMS),
    # near-misses: left as their ops
    case("near_miss_other_dim", RmsNorm(shape=(5, 1), dims=(1,)), [X], opsets=RMS),
    case("near_miss_eps_after_sqrt", RmsNorm(eps_after_sqrt=True), [X], opsets=RMS),
    case("near_miss_no_keepdim", RmsNorm(keepdim=False, weight=False), [torch.randn(4, 4, 4)],
         opsets=RMS),
]
