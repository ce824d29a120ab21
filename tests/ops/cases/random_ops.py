# Random ops -> ONNX's random generators: dtype and shape exact, values compared by distribution
# (compare="stats": mean, std, and the range of integer samples; see tests/ops/op_case.py).
import torch
import torch.nn.functional as F
from op_case import Fn, case

X = torch.randn(40, 100)
P = torch.rand(40, 100)
ST = dict(compare="stats", opsets=(9, 13, 17))


class DynamicSize(torch.nn.Module):
    def forward(self, x):
        return torch.rand(x.size(0), 50) + 0 * x.sum(), torch.randn([x.size(0), 50])


CASES = [
    case("rand", Fn(lambda x: torch.rand(40, 100) + 0 * x.mean()), [X], **ST),
    case("randn", Fn(lambda x: torch.randn(40, 100) + 0 * x.mean()), [X], **ST),
    case("rand_double", Fn(lambda x: torch.rand(40, 100, dtype=torch.float64)), [X], **ST),
    case("rand_like", Fn(lambda x: torch.rand_like(x)), [X], **ST),
    case("randn_like", Fn(lambda x: torch.randn_like(x) * 2 + 1), [X], **ST),
    case("randn_like_double", Fn(lambda x: torch.randn_like(x, dtype=torch.float64)), [X], **ST),
    case("randint", Fn(lambda x: torch.randint(10, (40, 100)) + 0 * x.long().sum()), [X], **ST),
    case("randint_low_int32", Fn(lambda x: torch.randint(-5, 5, (40, 100), dtype=torch.int32)), [X], **ST),
    case("bernoulli", Fn(lambda p: torch.bernoulli(p)), [P], **ST),
    case("bernoulli_p", Fn(lambda x: torch.bernoulli(x, 0.3)), [X], **ST),
    # (abs: the exporter's example run feeds random normal inputs, not valid probabilities)
    case("multinomial", Fn(lambda p: torch.multinomial(p.abs() + 0.01, 1)), [torch.rand(4000, 5)], **ST),
    case("multinomial_replacement", Fn(lambda p: torch.multinomial(p.abs() + 0.01, 2000, replacement=True)),
         [torch.tensor([0.1, 0.2, 0.3, 0.4])], **ST),
    case("normal_tensor_tensor", Fn(lambda m, s: torch.normal(m, s)), [X * 3, P + 0.5], **ST),
    case("normal_tensor_float", Fn(lambda m: torch.normal(m, 2.0)), [torch.full((40, 100), 1.5)], **ST),
    case("normal_float_float", Fn(lambda x: torch.normal(2.0, 3.0, (40, 100))), [X], **ST),
    case("dropout_training", Fn(lambda x: F.dropout(x, 0.3, training=True)), [X.abs() + 1], **ST),
    case("rrelu_training", Fn(lambda x: F.rrelu(x, 0.1, 0.4, training=True)), [-(X.abs() + 1)], **ST),
    case("dynamic_size", DynamicSize(), [torch.randn(80, 3)], compare="stats", opsets=(9, 13, 17),
         cli_args=("--dynamic-axes", "x=0")),
]
