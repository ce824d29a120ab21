# Casts: aten::to (dtype / other tensor overloads), type_as, the .int()/.long()/.float()/... methods.
import torch
from op_case import Fn, case


class ScriptCasts(torch.nn.Module):
    def forward(self, x, i):
        return x.int(), x.long(), i.float(), x.to(torch.bool), x.double(), x.to(torch.int32), x.type_as(i), x.to(i), i.half()


X = torch.randn(2, 3, 4) * 5
I = torch.randint(-9, 10, (2, 3))

CASES = [
    case("to_dtype", Fn(lambda a: (a.to(torch.int64), a.to(torch.int32), a.to(torch.float64), a.to(torch.float32),
                                   a.to(torch.bool), a.to(torch.int8))), [X]),
    case("methods", Fn(lambda a: (a.int(), a.long(), a.double(), a.bool(), a.half(), a.short(), a.float())), [X]),
    case("int_to_float", Fn(lambda a: (a.float(), a.double(), a.bool(), a.int(), a.to(torch.uint8) if False else a)), [I]),
    case("bool_to", Fn(lambda a: (a.float(), a.long(), a.int())), [X > 0]),
    case("to_other", Fn(lambda a, b: (a.to(b), b.to(a), a.type_as(b), b.type_as(a))), [X, I]),
    case("casts_script", ScriptCasts(), [X, I], method="script"),
]
