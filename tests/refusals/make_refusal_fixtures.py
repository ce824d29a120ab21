#!/usr/bin/python3
"""Models whose ops the packs must refuse (Debian's /usr/bin/python3).

    /usr/bin/python3 tests/refusals/make_refusal_fixtures.py OUT_DIR

Writes OUT_DIR/<name>.pt for each model below (traced or scripted).
"""
import os
import sys


def generate(out):
    import torch

    class Fn(torch.nn.Module):
        def __init__(self, fn):
            super().__init__()
            self.fn = fn

        def forward(self, *xs):
            return self.fn(*xs)

    from typing import Dict, List

    class NestedListAppend(torch.nn.Module):
        # a list of lists grown in a loop whose trip count is read at run time: an ONNX sequence of
        # sequences, which ONNX Runtime cannot load (issue 29)
        def forward(self, x, n):
            out: List[List[torch.Tensor]] = []
            for i in range(int(n)):
                out.append([x, x * i])
            return x * len(out)

    class ListIndexRuntime(torch.nn.Module):
        # a list of tensors indexed at a run-time position: SequenceAt, from opset 11 (as torch.onnx)
        def forward(self, x, i):
            return torch.unbind(x, 0)[int(i)]

    class ListSetRuntime(torch.nn.Module):
        # a list set at a run-time position: SequenceErase + SequenceInsert, from opset 11 (as torch.onnx)
        def forward(self, x, i):
            parts: List[torch.Tensor] = [x[0], x[1]]
            parts[int(i)] = x[0] * 2
            return torch.stack(parts, 0)

    class TensorSplitDynamic(torch.nn.Module):
        # sections of a dynamic axis: Slice bounds computed at run time, which opset 9's Slice (bounds
        # as attributes) cannot take (torch.onnx 1.13 converts tensor_split from opset 11 only)
        def forward(self, x):
            a, b, c = torch.tensor_split(x, 3, dim=1)
            return torch.cat([a, c], 1)

    class Linspace(torch.nn.Module):
        def forward(self, x):
            return torch.linspace(0.0, 1.0, int(x.size(0)) + int(x[0]))

    class DictWriteInBranch(torch.nn.Module):
        # a dict written inside a branch the example run decides: not folded into its entries
        def forward(self, x):
            out: Dict[str, torch.Tensor] = {}
            out["a"] = x
            if bool(x.sum() > 0):
                out["b"] = x * 2
            return out

    class DictWriteInLoop(torch.nn.Module):
        # a dict written in a loop whose trip count follows the data (one of a static size is unrolled)
        def forward(self, x):
            out: Dict[str, torch.Tensor] = {}
            for i in range(int(x.sum() > 0) + 1):
                out["row"] = x[i]
            return out

    class DictWriteRuntimeKey(torch.nn.Module):
        # a key made from the data
        def forward(self, x):
            out: Dict[str, torch.Tensor] = {}
            key = "pos" if bool(x.sum() > 0) else "neg"
            out[key] = x
            return out

    from typing import Optional

    class OptionalIf(torch.nn.Module):
        # an If output None in one branch: an ONNX optional, from opset 15 (as torch.onnx)
        def forward(self, x, flag):
            y: Optional[torch.Tensor] = None
            if bool(flag):
                y = x * 2
            if y is None:
                return x
            return y

    class OptionalLoop(torch.nn.Module):
        # a loop-carried value None on entry, a tensor later: an ONNX optional, from opset 15
        def forward(self, x, n):
            y: Optional[torch.Tensor] = None
            for _ in range(int(n)):
                y = x if y is None else y + x
            return x if y is None else y

    class OptionalIntoOp(torch.nn.Module):
        # an optional given to an op that takes a tensor (Tensor? bias) without `is not None` first
        def forward(self, x, w, flag):
            b: Optional[torch.Tensor] = None
            if bool(flag):
                b = w.sum(1)
            return torch.nn.functional.linear(x, w, b)

    class EmptyListsOnly(torch.nn.Module):
        # PyTorch's test_list_append_nested_2: both returned lists stay empty at every size (the branch
        # that fills them never runs), so the model returns no tensor at all; ONNX needs an output
        def forward(self, x):
            res: List[torch.Tensor] = []
            res_replicate: List[torch.Tensor] = []
            for i in range(x.size(0)):
                if len(res) > 2:
                    for j in range(x.size(1)):
                        res.append(x[i][j])
                    res_replicate.append(res[-1])
                    res.append(res_replicate[-1])
            return res, res_replicate

    class ListConcatRuntimeLists(torch.nn.Module):
        # two lists built at run time (ONNX sequences) joined: no ONNX op concatenates sequences (a
        # run-time list plus a list built in the graph is a SequenceInsert chain, as torch.onnx)
        def forward(self, x):
            a: List[torch.Tensor] = []
            b: List[torch.Tensor] = []
            for i in range(x.size(0)):
                a.append(x[i])
                b.append(x[i] * 2)
            return torch.stack(a + b)

    class SliceStepRuntime(torch.nn.Module):
        # a slice written with a step read at run time: the written positions are a Range (opset 11)
        def forward(self, x, z):
            x[0::z] = 1
            return x

    class DictPop(torch.nn.Module):
        def forward(self, x):
            out: Dict[str, torch.Tensor] = {"a": x, "b": x * 2}
            out.pop("a")
            return out

    models = {
        # made-up example inputs the model rejects both as ones (i: one_hot's class ids) and as zeros
        # (j: an integer divisor): the error names the input an op checks and says to give its values
        # with --example-inputs (a model that takes zeros is exported: tests/ops/cases/made_up_values.py)
        "one_hot_made_up": (Fn(lambda i, j: torch.nn.functional.one_hot(i, 1)
                               * torch.div(torch.full_like(j, 7), j, rounding_mode="floor").unsqueeze(1)),
                            [torch.tensor([0, 0, 0]), torch.tensor([2, 2, 2])]),
        "det_7x7": (Fn(lambda x: torch.det(x)), [torch.randn(7, 7)]),
        "inverse_5x5": (Fn(lambda x: torch.inverse(x)), [torch.randn(5, 5) + 3 * torch.eye(5)]),
        "unique_unsorted": (Fn(lambda x: torch.unique(x, sorted=False)), [torch.tensor([3, 1, 3])]),
        "median_dim": (Fn(lambda x: torch.median(x, 1)), [torch.randn(3, 4)]),
        "bitwise_int": (Fn(lambda a, b: a & b), [torch.tensor([5, 6]), torch.tensor([3, 3])]),
        # complex values are (real, imaginary) pairs: refused at an output and at an op that does not take pairs
        "complex_output": (Fn(lambda x: torch.fft.fft(x)), [torch.randn(4, 8)]),
        "fft_below_17": (Fn(lambda x: torch.view_as_real(torch.fft.fft(x))), [torch.randn(4, 8)]),
        "complex_into_mul": (Fn(lambda x: torch.view_as_real(torch.fft.rfft(x) * 2)), [torch.randn(4, 8)]),
    }
    for name, (module, inputs) in models.items():
        torch.jit.trace(module.eval(), tuple(inputs)).save(os.path.join(out, name + ".pt"))
    torch.jit.script(Linspace()).save(os.path.join(out, "linspace_runtime_steps.pt"))
    torch.jit.script(NestedListAppend()).save(os.path.join(out, "nested_list_append.pt"))
    torch.jit.script(TensorSplitDynamic()).save(os.path.join(out, "tensor_split_dynamic.pt"))
    torch.jit.script(ListIndexRuntime()).save(os.path.join(out, "list_index_runtime.pt"))
    torch.jit.script(ListSetRuntime()).save(os.path.join(out, "list_set_runtime.pt"))
    torch.jit.script(DictWriteInBranch()).save(os.path.join(out, "dict_write_in_branch.pt"))
    torch.jit.script(DictWriteInLoop()).save(os.path.join(out, "dict_write_in_loop.pt"))
    torch.jit.script(DictWriteRuntimeKey()).save(os.path.join(out, "dict_write_runtime_key.pt"))
    torch.jit.script(DictPop()).save(os.path.join(out, "dict_pop.pt"))
    torch.jit.script(OptionalIf()).save(os.path.join(out, "optional_if.pt"))
    torch.jit.script(OptionalLoop()).save(os.path.join(out, "optional_loop.pt"))
    torch.jit.script(OptionalIntoOp()).save(os.path.join(out, "optional_into_op.pt"))
    torch.jit.script(EmptyListsOnly()).save(os.path.join(out, "empty_lists_only.pt"))
    torch.jit.script(ListConcatRuntimeLists()).save(os.path.join(out, "list_concat_runtime_lists.pt"))
    torch.jit.trace(SliceStepRuntime(), (torch.zeros(6, 3), torch.tensor(2))).save(os.path.join(out, "slice_step_runtime.pt"))


def main():
    # Generated once per machine and version of this file, renamed into place when complete (every
    # test process runs this; the others wait for the first, and none reads a half-written archive).
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures"))
    import make_fixtures as mf
    out = sys.argv[1]
    mf.generate_once(out, os.path.abspath(__file__), lambda _digest: generate(out))


if __name__ == "__main__":
    main()
